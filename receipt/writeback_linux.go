package receipt

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeBack starts the writeback of f's dirty pages and returns without
// waiting for it (sync_file_range(2), SYNC_FILE_RANGE_WRITE).
func writeBack(f *os.File) error {
	return unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
