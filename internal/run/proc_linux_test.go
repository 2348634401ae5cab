package run

import (
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
)

// TestFeedThroughInterruptedPolls: a signal that interrupts the copy of
// the caller's input while it waits for input (the Go runtime's own
// preemption signal, SIGURG, say) does not end the copy: input that comes
// after reaches the worker, and the copy still ends with the input. It runs
// in a process of its own, which signals the thread the copy waits on.
func TestFeedThroughInterruptedPolls(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) != "interrupt" {
		testkit.Rerun(t, "interrupt", nil)
		return
	}
	tests := []struct {
		name       string
		interrupts int
		want       string
	}{
		{name: "not interrupted", want: "after\n"},
		{name: "interrupted once", interrupts: 1, want: "after\n"},
		{name: "interrupted three times", interrupts: 3, want: "after\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, in := pipe(t)
			woken, _ := pipe(t)
			var dst testkit.LockedBuffer
			tids, done := make(chan int, 1), make(chan struct{})
			go func() {
				defer close(done)
				goruntime.LockOSThread() // feed's poll waits on this thread: the one signalled
				defer goruntime.UnlockOSThread()
				tids <- unix.Gettid()
				feed(&dst, src, woken)
			}()
			tid := <-tids
			for range tc.interrupts {
				if !waitsInPoll(t, tid, done) {
					t.Fatal("the copy ended at an interruption while it waited for input")
				}
				if err := unix.Tgkill(os.Getpid(), tid, unix.SIGURG); err != nil {
					t.Fatal(err)
				}
				waitDelivered(t, tid, unix.SIGURG)
			}
			if !waitsInPoll(t, tid, done) {
				t.Fatal("the copy ended at an interruption while it waited for input")
			}
			feedTheRest(t, in, done, &dst, tc.want)
		})
	}
}

// waitDelivered waits, bounded, until sig, sent to thread tid of this
// process, is no longer pending for it: its handler has run, and the
// system call it interrupted has returned.
func waitDelivered(t *testing.T, tid int, sig unix.Signal) {
	t.Helper()
	path := "/proc/self/task/" + strconv.Itoa(tid) + "/status"
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("the thread's pending signals: %v", err)
		}
		_, pending, ok := strings.Cut(string(b), "\nSigPnd:")
		pending, _, _ = strings.Cut(pending, "\n")
		mask, err := strconv.ParseUint(strings.TrimSpace(pending), 16, 64)
		if !ok || err != nil {
			t.Skipf("the thread's pending signals: %q", pending)
		}
		if mask&(1<<(sig-1)) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v is still pending for thread %d", sig, tid)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitsInPoll waits, bounded, until thread tid of this process waits in
// ppoll (as /proc says), and says whether it does; false once done is
// closed first. Where /proc does not say, the test is skipped.
func waitsInPoll(t *testing.T, tid int, done <-chan struct{}) bool {
	t.Helper()
	path := "/proc/self/task/" + strconv.Itoa(tid) + "/syscall"
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("where a thread waits: %v", err)
		}
		call, _, _ := strings.Cut(string(b), " ")
		if n, err := strconv.Atoi(call); err == nil && n == unix.SYS_PPOLL {
			return true
		}
		select {
		case <-done:
			return false
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d does not wait in ppoll: %s", tid, b)
		}
		time.Sleep(time.Millisecond)
	}
}
