//go:build linux || darwin

package lang

import (
	"errors"
	"os"
	goruntime "runtime"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/guard"
)

// dirFD is an open directory: a descriptor (O_PATH on Linux, so that
// opening it reads nothing and needs no right beyond the lookup).
type dirFD int

// noDir is no directory.
const noDir dirFD = -1

// errIsLink says the name opened is a link, which the walk reads itself.
var errIsLink = errors.New("a link")

func openRoot(root string) (dirFD, error) {
	fd, err := unix.Open(root, oDir|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return noDir, &os.PathError{Op: "open", Path: root, Err: err}
	}
	return dirFD(fd), nil
}

// openDirAt opens the directory name in d without following a link:
// errIsLink when name is one.
func openDirAt(d dirFD, name string) (dirFD, error) {
	fd, err := unix.Openat(int(d), name, oDir|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		return dirFD(fd), nil
	}
	if err == unix.ENOTDIR || err == unix.ELOOP || err == unix.EMLINK {
		if isLinkAt(d, name) {
			return noDir, errIsLink
		}
	}
	return noDir, &os.PathError{Op: "openat", Path: name, Err: err}
}

func isLinkAt(d dirFD, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(int(d), name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		st.Mode&unix.S_IFMT == unix.S_IFLNK
}

func readLinkAt(d dirFD, name string) (string, error) {
	buf := make([]byte, maxPath)
	n, err := unix.Readlinkat(int(d), name, buf)
	if err != nil {
		return "", &os.PathError{Op: "readlinkat", Path: name, Err: err}
	}
	if n >= len(buf) {
		return "", &os.PathError{Op: "readlinkat", Path: name, Err: unix.ENAMETOOLONG}
	}
	return string(buf[:n]), nil
}

func closeDir(d dirFD) {
	if d >= 0 {
		unix.Close(int(d))
	}
}

func dupDir(d dirFD) (dirFD, error) {
	fd, err := unix.FcntlInt(uintptr(d), unix.F_DUPFD_CLOEXEC, 0)
	return dirFD(fd), err
}

// statAt is what name in d is, without following a link: its type bits.
func statAt(d dirFD, name string) (os.FileMode, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(d), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &os.PathError{Op: "fstatat", Path: name, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return os.ModeDir, nil
	case unix.S_IFLNK:
		return os.ModeSymlink, nil
	case unix.S_IFREG:
		return 0, nil
	case unix.S_IFCHR:
		return os.ModeDevice | os.ModeCharDevice, nil
	case unix.S_IFBLK:
		return os.ModeDevice, nil
	case unix.S_IFIFO:
		return os.ModeNamedPipe, nil
	case unix.S_IFSOCK:
		return os.ModeSocket, nil
	}
	return os.ModeIrregular, nil
}

// openFileAt opens name in d with flag, never following a link:
// errIsLink when name is one.
func openFileAt(d dirFD, name string, flag int, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(int(d), name, flag|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY, perm)
	if err != nil {
		if (err == unix.ELOOP || err == unix.EMLINK) && isLinkAt(d, name) {
			return nil, errIsLink
		}
		return nil, &os.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openSelf opens the directory d itself for listing.
func openSelf(d dirFD) (*os.File, error) {
	fd, err := unix.Openat(int(d), ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: ".", Err: err}
	}
	return os.NewFile(uintptr(fd), "."), nil
}

func mkdirAt(d dirFD, name string) error {
	if err := unix.Mkdirat(int(d), name, 0o755); err != nil {
		return &os.PathError{Op: "mkdirat", Path: name, Err: err}
	}
	return nil
}

// removeAt removes the entry name of d: a link itself, never its target.
func removeAt(d dirFD, name string, dir bool) error {
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	if err := unix.Unlinkat(int(d), name, flags); err != nil {
		return &os.PathError{Op: "unlinkat", Path: name, Err: err}
	}
	return nil
}

// oDirectory makes an open fail unless it opens a directory.
const oDirectory = unix.O_DIRECTORY

// oNonblock makes an open of a named pipe return at once, where it would
// wait for the other end.
const oNonblock = unix.O_NONBLOCK

// filePath is the canonical path of the open file f, as the kernel
// reports it.
func filePath(f *os.File) (string, error) {
	p, err := dirPath(dirFD(f.Fd()))
	goruntime.KeepAlive(f)
	return p, err
}

// idAt is the identity of the entry name in d, not followed where it is a
// link, or of d itself where name is "": false when it cannot be read.
func idAt(d dirFD, name string) (guard.ID, bool) {
	var st unix.Stat_t
	var err error
	if name == "" {
		err = unix.Fstat(int(d), &st)
	} else {
		err = unix.Fstatat(int(d), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return guard.ID{}, false
	}
	return guard.ID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true
}
