//go:build !linux

package journal

import "os"

// datasync flushes f to the device: File.Sync, which is fsync(2), or
// F_FULLFSYNC on macOS, or FlushFileBuffers on Windows.
func datasync(f *os.File) error { return f.Sync() }
