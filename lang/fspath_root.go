//go:build !linux && !darwin

package lang

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/sabline/sabline/guard"
)

// dirFD is an open directory: an os.Root, whose operations never leave
// it. Each holds one directory of a walk; links are read by the walk.
type dirFD = *os.Root

// noDir is no directory.
var noDir dirFD

// errIsLink says the name opened is a link, which the walk reads itself.
var errIsLink = errors.New("a link")

func openRoot(root string) (dirFD, error) { return os.OpenRoot(root) }

// openDirAt opens the directory name in d without following a link.
func openDirAt(d dirFD, name string) (dirFD, error) {
	if name == ".." || name == "." {
		return nil, &os.PathError{Op: "openat", Path: name, Err: syscall.EINVAL}
	}
	fi, err := d.Lstat(name)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errIsLink
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "openat", Path: name, Err: syscall.ENOTDIR}
	}
	return d.OpenRoot(name)
}

func readLinkAt(d dirFD, name string) (string, error) { return d.Readlink(name) }

func closeDir(d dirFD) {
	if d != nil {
		d.Close()
	}
}

func dupDir(d dirFD) (dirFD, error) { return d.OpenRoot(".") }

func statAt(d dirFD, name string) (os.FileMode, error) {
	fi, err := d.Lstat(name)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// openFileAt opens name in d with flag: errIsLink when name is a link.
// Here the check and the open are two calls; the object opened is judged
// again by the caller.
func openFileAt(d dirFD, name string, flag int, perm uint32) (*os.File, error) {
	if fi, err := d.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errIsLink
	}
	return d.OpenFile(name, flag, os.FileMode(perm))
}

func openSelf(d dirFD) (*os.File, error) { return d.Open(".") }

func mkdirAt(d dirFD, name string) error { return d.Mkdir(name, 0o755) }

func removeAt(d dirFD, name string, _ bool) error { return d.Remove(name) }

// onProcfs is false: this system has no /proc.
func onProcfs(dirFD) bool { return false }

// dirPath is the canonical path of the open directory d.
func dirPath(d dirFD) (string, error) {
	f, err := d.Open(".")
	if err != nil {
		return "", err
	}
	defer f.Close()
	return openedPath(f)
}

// oDirectory is nothing here: the caller has checked.
const oDirectory = 0

// oNonblock is nothing here: this system has no named pipe a path opens.
const oNonblock = 0

// filePath is the canonical path of the open file f, as the system
// reports it.
func filePath(f *os.File) (string, error) { return openedPath(f) }

// idAt: no identity is read here; a guarded location is judged by its
// names alone (on Windows, folded: guard.FoldCase).
func idAt(dirFD, string) (guard.ID, bool) { return guard.ID{}, false }
