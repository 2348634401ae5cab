//go:build windows

package guard

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// defaultRegisterDir is the register every Sabline on this machine agrees
// on without being told: %ProgramData%\sabline\guarded, where every user
// may make files and only their maker (and administrators) may remove
// them.
func defaultRegisterDir() string {
	base := os.Getenv("ProgramData")
	if !filepath.IsAbs(base) {
		base = `C:\ProgramData`
	}
	return filepath.Join(base, "sabline", "guarded")
}

// fileOwner is -1: on Windows the owners of entries and paths are not
// compared.
func fileOwner(fs.FileInfo) int { return -1 }

// currentUser is -1, as fileOwner is; a test sets another.
var currentUser = func() int { return -1 }

// linkCount is 1: on Windows no view holds an entry (viewTag).
func linkCount(fs.FileInfo) int { return 1 }

// viewTag is "": Windows has no mount namespaces to tell apart, and its
// entries are at the register's top, where no view holds them.
var viewTag = func() string { return "" }

// bootTime is not read: on Windows no view holds an entry, and letGo
// removes one without asking.
var bootTime = func() (time.Time, bool) { return time.Time{}, false }

// openNoFollow opens the file at p for reading; ReadRegister has checked
// with Lstat that it is a regular file, and readEntry checks it again on
// the open file.
func openNoFollow(p string) (*os.File, error) { return os.Open(p) }

// trustRegister checks the register dir is a directory, not a link or
// another reparse point. Its access control list is not read: the
// default one of %ProgramData% lets each user remove only what they made.
func trustRegister(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return fmt.Errorf("%w: %s is a link: %s", errUntrustedRegister, dir, registerAdvice)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory: %s", errUntrustedRegister, dir, registerAdvice)
	}
	return nil
}

// pathOwnersOf reads this machine: whether p exists; no owners, which are
// not compared on Windows.
func pathOwnersOf(p string) ([]int, bool) {
	_, err := os.Lstat(p)
	return nil, err == nil
}

// readEntry reads at most MaxRegisterEntryBytes+1 bytes of the regular
// file at p owned by owner (as it was listed), opened without following a
// link; nil when it cannot, or when the file is no longer that one.
func readEntry(p string, owner int) []byte {
	f, err := openNoFollow(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fileOwner(fi) != owner {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(f, MaxRegisterEntryBytes+1))
	return data
}
