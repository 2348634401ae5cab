package wire

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestBegan: what a worker adds on its mapping of the page, the
// supervisor's mapping counts; the supervisor's is read-only and the
// worker's writable (their permissions in /proc/self/maps); the file can
// be neither shrunk nor grown, nor its seals taken off (the control: its
// size read back is a page). Closed, the page counts nothing, and a nil
// one neither.
func TestBegan(t *testing.T) {
	b, theirs, err := NewBegan()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	dup, err := unix.Dup(int(theirs.Fd())) // the worker's copy, as exec gives it
	if err != nil {
		t.Fatal(err)
	}
	worker := os.NewFile(uintptr(dup), "began")
	for _, tt := range []struct {
		name    string
		op      func() error
		wantErr error
	}{
		{name: "shrink", op: func() error { return theirs.Truncate(0) }, wantErr: syscall.EPERM},
		{name: "grow", op: func() error { return theirs.Truncate(1 << 20) }, wantErr: syscall.EPERM},
		{name: "unseal", op: func() error {
			_, err := unix.FcntlInt(theirs.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_WRITE)
			return err
		}, wantErr: syscall.EPERM},
	} {
		if err := tt.op(); !strings.Contains(fmt.Sprint(err), tt.wantErr.Error()) {
			t.Errorf("%s the page's file: %v, want %v", tt.name, err, tt.wantErr)
		}
	}
	if fi, err := theirs.Stat(); err != nil || fi.Size() != int64(os.Getpagesize()) {
		t.Fatalf("the page's file: %v, size %d; want a page", err, fi.Size())
	}
	theirs.Close()
	w, err := OpenBegan(worker)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n, ok := b.Count(); n != 0 || !ok {
		t.Fatalf("a new page counts %d, %v; want 0, true", n, ok)
	}
	w.Add()
	w.Add()
	if n, ok := b.Count(); n != 2 || !ok {
		t.Errorf("after two jobs begun the supervisor counts %d, %v; want 2, true", n, ok)
	}
	for _, m := range []struct {
		name, wantPerms string
		mem             []byte
	}{{"the supervisor's", "r--s", b.mem}, {"the worker's", "rw-s", w.mem}} {
		if got := perms(t, uintptr(unsafe.Pointer(&m.mem[0]))); got != m.wantPerms {
			t.Errorf("%s mapping: %q in /proc/self/maps, want %q", m.name, got, m.wantPerms)
		}
	}
	b.Close()
	if n, ok := b.Count(); ok {
		t.Errorf("a closed page counts %d, %v; want none", n, ok)
	}
	var none *Began
	none.Add()
	if _, ok := none.Count(); ok {
		t.Error("a nil page counts")
	}
}

// perms is the permissions /proc/self/maps gives the mapping at addr.
func perms(t *testing.T, addr uintptr) string {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		var lo, hi uintptr
		var p string
		if _, err := fmt.Sscanf(line, "%x-%x %s", &lo, &hi, &p); err == nil && lo <= addr && addr < hi {
			return p
		}
	}
	t.Fatalf("no mapping at %#x", addr)
	return ""
}
