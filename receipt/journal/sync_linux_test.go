package journal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSyncFailuresReported: datasync and SyncDir pass on the kernel's
// refusal to sync (a pipe or a FIFO cannot be synced: EINVAL) and the
// failure to open what they sync, and never report a sync that did not
// happen.
func TestSyncFailuresReported(t *testing.T) {
	tests := []struct {
		name string
		sync func(t *testing.T) error
		want error
	}{
		{name: "datasync of a pipe", want: syscall.EINVAL, sync: func(t *testing.T) error {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			return datasync(w)
		}},
		{name: "SyncDir of a FIFO", want: syscall.EINVAL, sync: func(t *testing.T) error {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			// Open for reading and writing, which does not wait: SyncDir's
			// open for reading then finds a writer and does not wait either.
			f, err := os.OpenFile(fifo, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			return SyncDir(fifo)
		}},
		{name: "SyncDir of a missing directory", want: fs.ErrNotExist,
			sync: func(t *testing.T) error {
				return SyncDir(filepath.Join(t.TempDir(), "absent"))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.sync(t); !errors.Is(err, tt.want) {
				t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
			}
		})
	}
}
