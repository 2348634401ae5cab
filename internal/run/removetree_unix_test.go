//go:build unix

package run

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOwnerRightsFollowNoLink: the temporary directory's removal gives a
// directory in it its owner's rights by name, in a tree a raw-call
// program wrote; where the entry is a link (swapped in since the entry
// was looked at), the mode of what it leads to, outside the tree, stays
// as it was, read from outside. The control: a directory by that name
// gets the rights.
func TestOwnerRightsFollowNoLink(t *testing.T) {
	tree, outside := t.TempDir(), filepath.Join(t.TempDir(), "outside")
	if err := os.Mkdir(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(outside, 0o300); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "swapped")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(tree, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(tree, "dir"), 0o300); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(tree, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	err = ownerRights(fd, "swapped", 0o300)
	if fi, serr := os.Stat(outside); serr != nil || fi.Mode().Perm() != 0o300 {
		t.Fatalf("ownerRights through a link (%v): what it leads to is %v (%v), want 0300 as "+
			"it was", err, fi.Mode().Perm(), serr)
	}
	if err := ownerRights(fd, "dir", 0o300); err != nil {
		t.Skipf("this kernel changes no mode without following a link (%v): such a directory "+
			"stays", err)
	}
	if fi, err := os.Stat(filepath.Join(tree, "dir")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the control: the directory's mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
}
