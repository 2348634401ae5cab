//go:build !unix

package journal

import (
	"errors"
	"io/fs"
	"os"
)

// openFlags are added to every open of a segment (none here).
const openFlags = 0

// errFileTooLarge: no such limit here.
var errFileTooLarge = errors.New("journal: no file size limit on this system")

// fileSizeLimit: this system has no file size limit of a process's.
func fileSizeLimit() (int64, bool) { return 0, false }

// writeOnce writes b to f, at its end when off is below zero and at off
// otherwise. Outside Unix the journal is written by one process at a
// time: File.Write and File.WriteAt are enough.
func writeOnce(f *os.File, b []byte, off int64) (int, error) {
	if off < 0 {
		return f.Write(b)
	}
	return f.WriteAt(b, off)
}

// SyncDir does nothing: a directory cannot be synced through os here, and
// NTFS journals its metadata.
func SyncDir(dir string) error { return nil }

// openDir opens nothing here: a directory open on Windows cannot be
// removed, and Linked reads the segment's name instead.
func openDir(string) *os.File { return nil }

// linked reports whether the segment's name, in the journal's directory,
// is still its file: a segment removed while open has no name, or another
// file has it. The caller holds j.mu.
func (j *Journal) linked() (bool, error) {
	s, dir := j.seg, j.dir
	fi, err := s.f.Stat()
	if err != nil {
		return false, err
	}
	at, err := os.Stat(s.name(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return os.SameFile(fi, at), nil
}
