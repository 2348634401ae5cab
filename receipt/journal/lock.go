package journal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LockFile, in a journal's directory, is the file its owner holds locked
// for as long as it appends there (TryLock).
const LockFile = "owner.lock"

// ErrLocked is the error of TryLock when another holder has the lock: a
// live process owns the journal.
var ErrLocked = errors.New("journal: locked by its owner")

// maxOwnerBytes bounds what Owner reads of a lock file.
const maxOwnerBytes = 256

// Lock is the lock of one journal's directory, held by its owner.
type Lock struct {
	f   *os.File
	dir string
}

// TryLock takes the lock of the journal in dir (the file LockFile in it,
// made when missing) without waiting, and writes this process's id in
// it. It fails with an error that wraps ErrLocked when another open of
// the file holds it: a process that appends there (in this process too).
// The lock goes when Unlock is called or the process ends, however it
// ends, so a journal whose lock can be taken has no live owner. On Unix
// it is flock(2) (local file systems); on Windows LockFileEx.
func TryLock(dir string) (*Lock, error) { return TryLockName(dir, LockFile) }

// TryLockName is TryLock of the file name in dir, for a lock beside the
// owner's (a shipper's, say).
func TryLockName(dir, name string) (*Lock, error) {
	p := filepath.Join(dir, name)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|openFlags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal lock: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (mode %s)", p, fi.Mode().Type())
	}
	if err == nil {
		err = lockFile(f)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal lock %s: %w", p, err)
	}
	// Who holds it, for a reader's messages; a failure here costs nothing
	// but the name.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(fmt.Sprintf("pid %d\n", os.Getpid())), 0)
	}
	return &Lock{f: f, dir: dir}, nil
}

// Unlock lets the journal go.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the file lets the lock go
	l.f = nil
	if err != nil {
		return fmt.Errorf("journal unlock %s: %w", l.dir, err)
	}
	return nil
}

// Owner is what the holder of the lock of the journal in dir wrote in
// it ("pid 1234"), or "" when it cannot be read: at most a short line
// of printable ASCII, whatever the file holds.
func Owner(dir string) string {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDONLY|openFlags, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxOwnerBytes))
	line, _, _ := strings.Cut(string(b), "\n")
	for _, c := range line {
		if c < 0x20 || c > 0x7e {
			return ""
		}
	}
	return line
}

// openRegular opens the file at path for reading as a file of a receipts
// directory is read: a symbolic link is not followed, a named pipe does
// not block the open (on Unix), and anything but a regular file, as
// the open found it, is refused with an error that says what it is. A
// name checked with Lstat and then opened can have been swapped between
// the two: this is the check of what was opened.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (mode %s)", path, fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ErrFileTooLarge is the error of ReadRegular for a file past its bound.
var ErrFileTooLarge = errors.New("larger than its bound")

// ReadRegular reads the regular file at path as openRegular opens it,
// whole when it holds at most limit bytes; a larger one is ErrFileTooLarge,
// read no further than limit and one byte.
func ReadRegular(path string, limit int64) ([]byte, error) {
	data, _, err := ReadRegularInfo(path, limit)
	return data, err
}

// ReadRegularInfo is ReadRegular, and the file's information as the
// file it read describes it (its owner among it), not as its name did
// before: the name may have been swapped since.
func ReadRegularInfo(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s: %w (%d bytes)", path, ErrFileTooLarge, limit)
	}
	if err != nil {
		return nil, nil, err
	}
	return data, fi, nil
}

// WriteRegular writes data to the file at path as a mark in a receipts
// directory is written: made (mode 0600) when missing, never through a
// symbolic link, never waiting on a named pipe, and written only when
// what it opened is a regular file, which it then truncates first. A
// link planted under a mark's name is refused, not followed to truncate
// its target.
func WriteRegular(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|openFlags, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (mode %s)", path, fi.Mode().Type())
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
