package escape

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
)

// TestPriorityWitnessSeesALend locks, from a thread of this process,
// FUTEX_LOCK_PI a word that holds the victim's pid, as an attempt of
// proc-futex-lock-pi-victim does unconfined: the kernel takes the victim
// as the lock's owner and lends it this thread's priority while the thread
// waits, which ends with the wait. The witness WitnessPriority, read
// before and after, names it, and makes $SEEN for the wait to end on;
// WitnessVictim, read at the same two moments, sees nothing of it. The
// control: a FUTEX_WAIT on the same word lends nothing, and the priority
// witness stays as it was.
func TestPriorityWitnessSeesALend(t *testing.T) {
	const (
		futexWait   = 0 // FUTEX_WAIT: its timeout a length
		futexLockPI = 6 // FUTEX_LOCK_PI: its timeout a time of CLOCK_REALTIME
	)
	for _, tt := range []struct {
		name string
		op   uintptr
		want []string
	}{
		{name: "FUTEX_LOCK_PI of a word naming the victim", op: futexLockPI,
			want: []string{"priority: priority"}},
		{name: "the control: FUTEX_WAIT of that word", op: futexWait},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewScratch(t.TempDir(), "priority")
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Expand("$VICTIM $SEEN"); err != nil {
				t.Fatal(err)
			}
			if err := s.watchPriority(); err != nil {
				t.Fatal(err)
			}
			before, err := s.Witness()
			if err != nil {
				t.Fatal(err)
			}
			if before[WitnessPriority] != "priority=39" {
				t.Fatalf("before the lock, the witness reads %q, want the victim's own priority=39",
					before[WitnessPriority])
			}
			// Waits of a tenth of a second, until the witness has seen a
			// lend ($SEEN) or, for the control, one wait has ended as a
			// wait that nothing wakes ends.
			word := uint32(s.victim.Process.Pid)
			errno := lockUntilSeen(&word, tt.op, s.values["$SEEN"])
			after, err := s.Witness()
			if err != nil {
				t.Fatal(err)
			}
			if !errors.Is(errno, unix.ETIMEDOUT) && !(tt.op == futexWait && errors.Is(errno, unix.EAGAIN)) {
				t.Fatalf("the futex call: %v, want it to wait and time out", errno)
			}
			if got := OfKind(Diff(before, after), WitnessPriority); !slices.Equal(got, tt.want) &&
				!(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("the priority witness saw %q, want %q (before %q, after %q)", got, tt.want,
					before[WitnessPriority], after[WitnessPriority])
			}
			if got := OfKind(Diff(before, after), WitnessVictim); len(got) != 0 {
				t.Errorf("the victim witness saw %q, want nothing: the lend lasts only while the "+
					"waiter waits", got)
			}
		})
	}
}

// lockUntilSeen makes futex(op) calls on word, from a thread of its own,
// each with a timeout a tenth of a second on, until one ends otherwise
// than ETIMEDOUT, seen exists, or op is FUTEX_WAIT (the control waits
// once), and returns the last call's errno. A witness that never makes
// seen is given up on after a bound scaled to the machine's load.
func lockUntilSeen(word *uint32, op uintptr, seen string) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	deadline := time.Now().Add(testkit.Bound(30 * time.Second))
	for {
		var ts unix.Timespec
		if op == 0 {
			ts = unix.NsecToTimespec(int64(100 * time.Millisecond))
		} else {
			ts = unix.NsecToTimespec(time.Now().Add(100 * time.Millisecond).UnixNano())
		}
		_, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(word)), op,
			uintptr(*word), uintptr(unsafe.Pointer(&ts)), 0, 0)
		_, err := os.Stat(seen)
		if errno != unix.ETIMEDOUT || err == nil || op == 0 || time.Now().After(deadline) {
			if errno == 0 {
				return nil
			}
			return errno
		}
	}
}

// TestThreadTargets runs the targets of the holds on threads and futexes
// the filter keeps, each confined and with --no-confine on the knock-out
// build, and observes each as the sandbox suite does: the kernel report's
// evidence for them, one target at a time. proc-futex-lock-pi-victim:
// confined, seccomp refuses FUTEX_LOCK_PI (EPERM) and the victim's
// priority, read from outside, stays its own; the control waits, and the
// victim is lent the worker's. threads-clone-own-descriptors: confined,
// seccomp refuses a thread made without CLONE_FILES (EPERM); the control
// makes it.
func TestThreadTargets(t *testing.T) {
	for _, id := range []string{"proc-futex-lock-pi-victim", "threads-clone-own-descriptors"} {
		t.Run(id, func(t *testing.T) {
			bins, target := knockoutTarget(t, id)
			if target.Arch != "" && target.Arch != runtime.GOARCH {
				t.Skipf("%s is a target of %s, not %s", id, target.Arch, runtime.GOARCH)
			}
			run := executor(t, bins)
			control := run(target, Unconfined)
			confined := run(target, Confined)
			t.Logf("confined: %q %q, witness %q; control: %q %q, witness %q", confined.Stdout,
				confined.Message, confined.Witnessed, control.Stdout, control.Message,
				control.Witnessed)
			if !target.UnconfinedAllows(control.Attempt()) {
				t.Errorf("the control met %q, want %s\n%s", control.Attempt(), target.Unconfined,
					control.Stderr)
			}
			if target.Witness != "" && len(control.Witnessed) == 0 {
				t.Errorf("the control did not change the %s witness: it cannot see the attempt",
					target.Witness)
			}
			if target.Witness == "" && len(control.Changed) != 0 {
				t.Errorf("the control changed %q outside the worker, and the target has no witness",
					control.Changed)
			}
			if got := Observe(target, confined, &control, "linux"); got != target.Expect {
				t.Errorf("Observe = %v, want %v (confined witness %q)\n%s", got, target.Expect,
					confined.Witnessed, confined.Stderr)
			}
			if strings.Contains(confined.Stdout+control.Stdout, "step=") {
				t.Errorf("a step before the attempt failed: %q, %q", confined.Stdout, control.Stdout)
			}
		})
	}
}
