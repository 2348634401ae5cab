//go:build !linux

package guard

import (
	"errors"
	"io/fs"
	"os"
)

// errNotDir is readDir's error for a path that is not a directory.
var errNotDir = errors.New("not a directory")

// readDir is ReadDir where the directory is read through package os: a
// path that is not a directory, as followed, is not opened.
func readDir(dir string) ([]fs.DirEntry, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: errNotDir}
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
