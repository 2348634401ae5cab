package guard

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPruneLeavesAHeldEntryInPlace: an entry another view holds is left
// in place by a prune that does not find its path: never taken out of
// the register and given back (relink), where a run reading the register
// in the meantime, to build its guard set, would not find it and would
// leave the path unguarded. Judged from the disk: the entry is the same
// file, and its change time, which a name removed or given back moves,
// has not moved. The control: a second name given to the entry and taken
// away moves it, on this file system, as a prune that took it out would.
func TestPruneLeavesAHeldEntryInPlace(t *testing.T) {
	const boot = "0123456789abcdef0123456789abcdef"
	as := asView(t)
	dir := t.TempDir()
	reg := useRegister(t, dir)
	store := filepath.Join(dir, "store")
	for _, d := range []string{store, filepath.Join(dir, "a")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	as(boot + "-1")
	if err := Join(store); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(store); err != nil { // not there for the view that joins next
		t.Fatal(err)
	}
	entry := filepath.Join(ownSub(reg), entryName(store))
	// Written in an earlier boot, and held again by a view of this one
	// as it joined: the hold alone keeps it (unheldOfThisBoot does not).
	writtenBeforeThisBoot(t, entry)
	changed := func() (os.FileInfo, syscall.Timespec) {
		t.Helper()
		fi, err := os.Lstat(entry) // asked: the next change is stamped finely
		if err != nil {
			t.Fatalf("the entry of %s: %v", store, err)
		}
		return fi, fi.Sys().(*syscall.Stat_t).Ctim
	}
	// The control: a name given to the entry and taken away moves its
	// change time, as a prune that took it out and gave it back would.
	_, ca := changed()
	second := filepath.Join(dir, "second")
	if err := os.Link(entry, second); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(second); err != nil {
		t.Fatal(err)
	}
	before, c0 := changed()
	if c0 == ca {
		t.Skipf("a name given and taken away leaves the change time %v: this file system's "+
			"stamps cannot tell", c0)
	}
	as(boot + "-2")
	if err := Join(filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	after, c1 := changed()
	if !os.SameFile(before, after) || c1 != c0 {
		t.Errorf("the entry of %s, held by another view, was taken out and given back by a prune "+
			"(same file %v, change time %v, was %v)", store, os.SameFile(before, after), c1, c0)
	}
}
