package guard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
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

// TestJoinInALandlockDomainWithoutRefer: a process held by a Landlock
// domain that does not handle the right to refer is refused every link
// from one directory into another (EXDEV), as a hold's link is: the Join
// fails, and says why and what to do, where it said "invalid
// cross-device link" alone. The control: the same Join before the
// domain holds the thread holds its entry, read from the disk. The
// domain is this test's thread's alone, which ends with it.
func TestJoinInALandlockDomainWithoutRefer(t *testing.T) {
	dir := t.TempDir()
	useRegister(t, dir)
	asView(t)("0123456789abcdef0123456789abcdef-1")
	before, after := filepath.Join(dir, "before"), filepath.Join(dir, "after")
	for _, d := range []string{before, after} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := Join(before); err != nil {
			done <- fmt.Errorf("the control, before the domain: %w", err)
			return
		}
		attr := [1]uint64{unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK} // no refer handled
		fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET,
			uintptr(unsafe.Pointer(&attr[0])), unsafe.Sizeof(attr), 0)
		if errno != 0 {
			done <- fmt.Errorf("landlock_create_ruleset: %w", errno)
			return
		}
		defer unix.Close(int(fd))
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			done <- err
			return
		}
		if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
			done <- fmt.Errorf("landlock_restrict_self: %w", errno)
			return
		}
		done <- Join(after)
	}()
	err := <-done
	if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) {
		t.Skip("no Landlock here:", err)
	}
	if err == nil || !errors.Is(err, syscall.EXDEV) || !strings.Contains(err.Error(), linkAcrossRefused) {
		t.Errorf("Join in the domain: %v, want EXDEV saying %q", err, linkAcrossRefused)
	}
	held, _ := filepath.Glob(filepath.Join(dir, "guarded", "*", heldName, "*", "*"))
	if len(held) != 1 {
		t.Errorf("holds on the disk: %v, want the control's alone", held)
	}
}
