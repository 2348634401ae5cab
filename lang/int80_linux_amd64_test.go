package lang

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// sigBlk reads the signal mask of the calling thread from /proc.
func sigBlk(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "SigBlk:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no SigBlk line in /proc/thread-self/status")
	return ""
}

// TestSyscall32 makes a call through the i386 entry. Where the kernel has
// the entry, getpid answers this process's id; where it has none, the
// fault is an error, never the end of the process; either way the
// thread's signal mask is as it was, and the process goes on.
func TestSyscall32(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := sigBlk(t)
	for range 100 {
		r, errno, err := syscall32([7]uintptr{20}) // i386 getpid
		switch {
		case errors.Is(err, ErrNoI386Entry):
			if r != 0 || errno != 0 {
				t.Fatalf("a fault with a result: %d, %v", r, errno)
			}
		case err != nil:
			t.Fatalf("syscall32(getpid): %v", err)
		case errno != 0 || r != int64(os.Getpid()):
			t.Fatalf("i386 getpid = %d, %v; want %d", r, errno, os.Getpid())
		}
		if got := sigBlk(t); got != before {
			t.Fatalf("the thread's signal mask is %s after the call, %s before", got, before)
		}
	}
	runtime.GC() // the runtime walks every stack, this one's frames too
	// A bad number answers ENOSYS where the entry exists.
	if _, errno, err := syscall32([7]uintptr{1 << 20}); err == nil && errno != syscall.ENOSYS {
		t.Errorf("i386 call %d: %v, want ENOSYS", 1<<20, errno)
	}
}
