//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMissingDirectoryMadePrivate: a store given as a path alone whose
// directory is missing is made, it and each parent it lacks, mode 0700
// whatever the umask lets through: the receipts it will keep say what
// each tenant's programs did, and a directory others could read would
// show them. Judged from the mode on disk, under a umask of 022; the
// control: a directory that is there is opened as it is.
func TestMissingDirectoryMadePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	base := t.TempDir()
	dir := filepath.Join(base, "parent", "store")
	b, err := open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s made mode %s; want -rwx------", d, fi.Mode().Perm())
		}
	}
	there := filepath.Join(base, "there")
	if err := os.Mkdir(there, 0o750); err != nil {
		t.Fatal(err)
	}
	if b, err = open(context.Background(), there); err != nil {
		t.Fatal(err)
	}
	b.Close()
	fi, err := os.Stat(there)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("the control: a directory that was there, mode 0750, is now %s", fi.Mode().Perm())
	}
}
