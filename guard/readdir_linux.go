package guard

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readDir is ReadDir on Linux: the directory opened (O_DIRECTORY, so that
// nothing else is opened, nor waited on) and its records read with
// getdents64, each entry's type from its record. os.Open and ReadDir make
// two more system calls a directory (an fstat, and the runtime poller's
// registration) and a descriptor of the runtime's, for every directory a
// guard lists.
func readDir(dir string) ([]fs.DirEntry, error) {
	fd, err := openDir(dir)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, direntBuffer)
	var out []fs.DirEntry
	for {
		n, err := unix.Getdents(fd, buf)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return out, &fs.PathError{Op: "getdents64", Path: dir, Err: err}
		case n <= 0:
			return out, nil
		}
		out = appendDirents(out, dir, buf[:n])
	}
}

// openDir opens dir for reading its entries, refusing anything but a
// directory.
func openDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// direntBuffer is what one getdents64 call reads at most: the size
// package os reads a directory with.
const direntBuffer = 8 << 10

// direntHeader is the size of a linux_dirent64 record before its name:
// d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1).
const direntHeader = 19

// appendDirents appends to out the entries of the linux_dirent64 records
// in b, read from dir: "." and ".." left out, each entry's type from its
// record, or, where the file system does not say it (DT_UNKNOWN), from an
// lstat of it, as package os does. A record that does not fit in what is
// left of b ends it.
func appendDirents(out []fs.DirEntry, dir string, b []byte) []fs.DirEntry {
	for len(b) >= direntHeader {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < direntHeader || reclen > len(b) {
			break
		}
		typ, name := b[18], b[direntHeader:reclen]
		b = b[reclen:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		e := &dirent{dir: dir, name: string(name)}
		var ok bool
		if e.typ, ok = direntTypes[typ]; !ok {
			fi, err := os.Lstat(filepath.Join(dir, e.name))
			if err != nil {
				continue // gone since it was listed
			}
			e.typ = fi.Mode().Type()
		}
		out = append(out, e)
	}
	return out
}

// direntTypes are the types a record says (d_type), as fs.FileMode's
// type bits; DT_UNKNOWN is not among them.
var direntTypes = map[byte]fs.FileMode{
	unix.DT_REG:  0,
	unix.DT_DIR:  fs.ModeDir,
	unix.DT_LNK:  fs.ModeSymlink,
	unix.DT_FIFO: fs.ModeNamedPipe,
	unix.DT_SOCK: fs.ModeSocket,
	unix.DT_CHR:  fs.ModeDevice | fs.ModeCharDevice,
	unix.DT_BLK:  fs.ModeDevice,
}

// dirent is an entry readDir listed.
type dirent struct {
	dir, name string
	typ       fs.FileMode
}

func (d *dirent) Name() string               { return d.name }
func (d *dirent) IsDir() bool                { return d.typ.IsDir() }
func (d *dirent) Type() fs.FileMode          { return d.typ }
func (d *dirent) Info() (fs.FileInfo, error) { return os.Lstat(filepath.Join(d.dir, d.name)) }
