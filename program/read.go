package program

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sabline/sabline/internal/bounded"
)

// The ways ReadBeneath refuses a program, beside the errors of opening
// it (fs.ErrNotExist and the rest), for callers to tell apart with
// errors.Is.
var (
	// ErrNotBeneath is a name that leads out of the root: an absolute path
	// elsewhere or a "..". A link out of it fails to open.
	ErrNotBeneath = errors.New("not beneath the root")
	// ErrNotRegular is a directory, a pipe, a device or anything but a
	// regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is a file of more than MaxBytes.
	ErrTooLarge = fmt.Errorf("larger than %d bytes", MaxBytes)
)

// ReadBeneath reads the program file name (absolute, or relative to root)
// beneath root, following links only while they stay beneath it (an
// absolute link, a ".." above the root or a /proc magic link fails to
// open), and at most MaxBytes of it. The bytes come from the file it
// opened: opened again by name, the path could lead elsewhere by then.
// The root is opened by its path at every call, so that a directory put
// in its place is the one read (or refused). On Linux the file is opened
// in one openat2 call with RESOLVE_BENEATH (readBeneath); elsewhere, and
// where the kernel has no openat2, through an [os.Root] (readRoot), which
// resolves the same way in user space. Every program a pool or a door
// reads beneath its import root is read here; the command line, which may
// read a program from a pipe, reads its own.
func ReadBeneath(root, name string) ([]byte, error) {
	rel := name
	if filepath.IsAbs(name) {
		r, err := filepath.Rel(root, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, ErrNotBeneath)
		}
		rel = r
	}
	if !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("read %s: %w", name, ErrNotBeneath)
	}
	src, err := readBeneath(root, rel)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err) // a link out of root too
	}
	return src, nil
}

// readRoot is readBeneath through an [os.Root] at root: rel, a local
// path, opened without following links out of root, refused unless it is
// a regular file of at most MaxBytes.
func readRoot(root, rel string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("the root: %w", err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	return Read(f, fi.Size())
}

// ReadFile reads the program at path, through any link: a regular file
// of at most MaxBytes, judged on the file opened, so that a named pipe
// put in its place after a check is opened without waiting and refused
// (ErrNotRegular), never waited on.
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (mode %s)", ErrNotRegular, fi.Mode().Type())
	}
	return Read(f, fi.Size())
}

// Read reads a program from r to its end: ErrTooLarge past MaxBytes, and
// a read's error as it is (a program cut short by one is not run). size
// is what r held when it was looked at, where r is a regular file (its
// fstat, or a stat of its path), or -1 (a pipe, a terminal): with it, a
// file read whole in one call is not read again for its end
// ([bounded.ReadSized]).
func Read(r io.Reader, size int64) ([]byte, error) {
	b, over, err := bounded.ReadSized(r, MaxBytes, size)
	switch {
	case over:
		return nil, ErrTooLarge
	case err != nil:
		return nil, err
	}
	return b, nil
}
