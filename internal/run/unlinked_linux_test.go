package run

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUnlinkedHeld: what unlinkedHeld counts of a process's files, here
// the test's own, each file grown (ftruncate: apparent size) to a size
// of its own so that each is told apart in the sum. A file removed while
// held counts once however many descriptors hold it, and a file removed
// and only mapped counts too (its descriptor closed); a file still listed
// in the directory (the walk counts it), and a removed file on another
// device (a memfd: its pages are no disk of the directory's), count
// nothing. Each mutation of the count (every descriptor counted, a
// linked file counted twice, the mappings or another device's files)
// either stops a run whose directory is within its bound (E330) or lets
// one past it go on.
func TestUnlinkedHeld(t *testing.T) {
	dir, held := heldBeside(t)
	before := held()
	grown := func(name string, size int64) *os.File {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return f
	}
	const mib = 1 << 20
	check := func(what string, want int64) {
		t.Helper()
		if got := held() - before; got != want {
			t.Errorf("%s: %d MiB counted (%d bytes), want %d MiB", what, got/mib, got, want/mib)
		}
	}

	// The control: a file still listed is the walk's, not counted here.
	grown("listed", 3*mib)
	check("a listed file held open", 0)

	// Removed and held by three descriptors: once.
	removed := grown("removed", 5*mib)
	if err := os.Remove(removed.Name()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		fd, err := syscall.Dup(int(removed.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(fd) })
	}
	check("a removed file held by three descriptors", 5*mib)

	// On another device: a memfd, removed from its birth.
	fd, err := unix.MemfdCreate("sabline-test", 0)
	if err != nil {
		t.Logf("no memfd here (%v): that case is not tried", err)
	} else {
		t.Cleanup(func() { unix.Close(fd) })
		if err := unix.Ftruncate(fd, 11*mib); err != nil {
			t.Fatal(err)
		}
		check("a memfd of 11 MiB besides", 5*mib)
	}

	// Removed and mapped, its descriptor closed: /proc/PID/map_files is
	// read with CAP_SYS_ADMIN alone.
	if os.Geteuid() != 0 {
		t.Log("not root: the mapped file's case is not tried (map_files needs CAP_SYS_ADMIN)")
		return
	}
	mapped := grown("mapped", 7*mib)
	m, err := syscall.Mmap(int(mapped.Fd()), 0, 4096, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	if err := os.Remove(mapped.Name()); err != nil {
		t.Fatal(err)
	}
	mapped.Close()
	check("a removed file mapped, its descriptor closed, besides", 12*mib)
}

// TestUnlinkedHeldPastALongPath: a removed file mapped from beneath 300
// directories of 255-byte names, each made beneath the one before
// (mkdirat, openat) and removed since, is counted as a file mapped from
// its temporary directory is (the control): its line of
// /proc/PID/maps, the whole path the directories made (some 77 KB), is
// read to its end, however long. Read by lines of at most 64 KiB, it
// ended the read without a word, and the file (and every removed file
// mapped after it) counted nothing, the count still taken for whole.
func TestUnlinkedHeldPastALongPath(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: a mapped file is read through map_files, which needs CAP_SYS_ADMIN")
	}
	dir, held := heldBeside(t)
	// mapRemoved maps a file of size bytes made as name beneath the
	// directory at, then removes it and closes its descriptor.
	mapRemoved := func(at int, name string, size int64) {
		t.Helper()
		fd, err := unix.Openat(at, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		if err := unix.Ftruncate(fd, size); err != nil {
			t.Fatal(err)
		}
		m, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Munmap(m) })
		if err := unix.Unlinkat(at, name, 0); err != nil {
			t.Fatal(err)
		}
	}
	const mib = 1 << 20
	before := held()
	top, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(top)

	// The control: mapped from the directory itself.
	mapRemoved(top, "near", 3*mib)
	if got := held() - before; got != 3*mib {
		t.Fatalf("a removed file mapped from the directory: %d bytes counted, want %d", got, 3*mib)
	}

	name := strings.Repeat("d", 255)
	dirs := []int{top}
	for range 300 {
		at := dirs[len(dirs)-1]
		if err := unix.Mkdirat(at, name, 0o700); err != nil {
			t.Fatal(err)
		}
		fd, err := unix.Openat(at, name, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, fd)
	}
	mapRemoved(dirs[len(dirs)-1], "far", 7*mib)
	for i := len(dirs) - 1; i > 0; i-- {
		unix.Close(dirs[i])
		if err := unix.Unlinkat(dirs[i-1], name, unix.AT_REMOVEDIR); err != nil {
			t.Fatal(err)
		}
	}
	if got := held() - before; got != 10*mib {
		t.Errorf("a removed file mapped from beneath 300 directories, besides: %d MiB counted "+
			"(%d bytes), want 10 MiB", got/mib, got)
	}
}

// heldBeside makes a temporary directory for t, and returns it with the
// count of the removed files on its device that this process holds
// (unlinkedHeld), read whole or failing t.
func heldBeside(t *testing.T) (dir string, held func() int64) {
	t.Helper()
	dir = t.TempDir()
	dev, ok := deviceOf(dir)
	if !ok {
		t.Fatalf("the device of %s cannot be read", dir)
	}
	pid := os.Getpid()
	return dir, func() int64 {
		t.Helper()
		size, whole := unlinkedHeld(pid, dev)
		if !whole {
			t.Fatalf("the test's own descriptors and mappings were not read whole")
		}
		return size
	}
}
