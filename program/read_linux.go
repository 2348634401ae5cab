package program

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// beneath is how readBeneath opens a program: for reading, without
// waiting on a named pipe (openFlags), taking no terminal as the
// process's own, and resolved as os.Root resolves it: no component may
// lead above the directory (a "..", an absolute link: EXDEV), and no
// /proc magic link is followed.
var beneath = unix.OpenHow{
	Flags:   uint64(openFlags) | unix.O_CLOEXEC | unix.O_NOCTTY,
	Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
}

// noOpenat2 is set once openat2 answered ENOSYS (a kernel before 5.6) or
// EPERM (a seccomp filter that does not know it): every read after goes
// through an os.Root.
var noOpenat2 atomic.Bool

// openat2 is unix.Openat2; a test puts a kernel without it in its place.
var openat2 = unix.Openat2

// readBeneath reads rel, a local path, beneath root: root opened by its
// path (O_DIRECTORY), rel opened beneath it in one openat2 call, refused
// unless it is a regular file of at most MaxBytes. Beside the reads to
// the end it makes five system calls where an os.Root (readRoot) makes
// seven, and two more for each directory rel passes through: the
// os.Root's fstat of its directory, its walk of rel one name at a time
// and the runtime's poller registration of the file are not needed to
// read it.
func readBeneath(root, rel string) ([]byte, error) {
	if noOpenat2.Load() {
		return readRoot(root, rel)
	}
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the root: %w", &fs.PathError{Op: "open", Path: root, Err: err})
	}
	fd, err := openat2(dir, rel, &beneath)
	unix.Close(dir)
	switch {
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
		noOpenat2.Store(true)
		return readRoot(root, rel)
	case errors.Is(err, unix.EXDEV):
		return nil, fmt.Errorf("openat2 %s: %w", rel, ErrNotBeneath)
	case err != nil:
		return nil, &fs.PathError{Op: "openat2", Path: rel, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, ErrNotRegular
	}
	return Read(fdReader(fd), st.Size)
}

// fdReader reads a descriptor as an io.Reader: a read of no bytes is its
// end, and a read the kernel interrupted is made again.
type fdReader int

func (fd fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(fd), p)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
