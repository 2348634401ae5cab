//go:build !unix

package journal

import "os"

// openFlags are added to every open of a segment (none here).
const openFlags = 0

// writeOnce writes b to f. Outside Unix the journal is written by one
// process at a time: File.Write is enough.
func writeOnce(f *os.File, b []byte) (int, error) { return f.Write(b) }

// SyncDir does nothing: a directory cannot be synced through os here, and
// NTFS journals its metadata.
func SyncDir(dir string) error { return nil }
