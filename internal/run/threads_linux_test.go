package run

import (
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// threadLoop is the start of a program that makes threads with raw
// clone calls: a thread's new stack (base + 0x800) holds one word, the
// address of a loop read from the program's private temporary directory
// into memory of its own, so that the clone returns there, into
// futex(FUTEX_WAIT) on a word that stays 0, and touches no memory of its
// own. amd64 code.
const threadLoop = `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
base = 0x300000000000
def le(v):
    return bytes([(v >> (8 * i)) & 0xff for i in range(8)])
# loop: mov eax, 202 (futex); movabs rdi, base+0xf00;
# mov esi, 128 (FUTEX_WAIT_PRIVATE); xor edx, edx; xor r10d, r10d; syscall;
# jmp loop
code = b"\xb8\xca\x00\x00\x00\x48\xbf" + le(base + 0xf00)
code += b"\xbe\x80\x00\x00\x00\x31\xd2\x45\x31\xd2\x0f\x05\xeb\xe3"
page = code + b"\x00" * (0x800 - len(code)) + le(base) + b"\x00" * (0x1000 - 0x808)
fd = c.syscall("openat", -100, tmp + "/loop", 0x42, 384)  # O_RDWR|O_CREAT, 0600
w = c.syscall("write", fd.ret, page, len(page))
# PROT_READ|PROT_WRITE|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE
m = c.syscall("mmap", base, len(page), 7, 0x100022, -1, 0)
r = c.syscall("pread64", fd.ret, base, len(page), 0)
print("openat errno=%s write errno=%s mmap errno=%s pread64 errno=%s" % (
    fd.errno, w.errno, m.errno, r.errno))
c.syscall("close", fd.ret)
`

// rawThreads makes ARGS[0] threads with raw clone(CLONE_THREAD) calls
// under --confine strict, each as the Go runtime makes its own (the
// filter's thread flags), then holds them for ARGS[1] seconds.
const rawThreads = threadLoop + `made = 0
for i in range(int(ARGS[0])):
    # CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM
    t = c.syscall("clone", 0x50f00, base + 0x800, 0, 0, 0)
    if t.errno:
        print("clone errno=%s" % t.errno)
        break
    made += 1
print("made %d" % made)
c.syscall("nanosleep", le(int(ARGS[1])) + le(0), 0)
print("held")
`

// TestWorkerThreadsBounded: a program granted ffi:ctypes under --confine
// strict (level full) makes threads with raw clone calls, which the
// filter allows (CLONE_THREAD, thread flags only). 3,000 of them ended
// ok: their kernel stacks, 16 KiB each, are memory no limit counts, and
// each takes an id of the machine's (kernel.pid_max), so that enough of
// them leave no process of the machine able to start another. The
// supervisor reads the worker's threads from outside and stops it past
// workerThreads (E310). The control: threads within the bound are
// held to the end, ok.
func TestWorkerThreadsBounded(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the threads' code is amd64's, not %s's", runtime.GOARCH)
	}
	hold, timeout := holdFor()
	secs := fmt.Sprint(int(hold.Seconds()))
	for _, tt := range []struct {
		name    string
		threads int
		want    codes.Code
	}{
		{name: "twice the bound", threads: 2 * workerThreads, want: codes.E310},
		{name: "the control: 64 threads", threads: 64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, rawThreads, []string{"io", "ffi:ctypes", "ffi:os"}, func(r *Run) {
				r.Args = []string{fmt.Sprint(tt.threads), secs}
				r.Confine, r.Timeout = core.ModeStrict, timeout
			})
			t.Logf("outcome %s %q, level %s, stdout %q", s.rec.Outcome.Code, s.rec.Outcome.Message,
				s.rec.RunParameters.Confinement, s.stdout)
			if level := s.rec.RunParameters.Confinement; level != "full" {
				t.Skipf("the run's level is %s, not full: %s", level, s.rec.RunParameters.ConfinementReason)
			}
			if strings.Contains(s.stdout, "errno=E") {
				t.Fatalf("a call failed: %q (stderr %s)", s.stdout, s.stderr)
			}
			if tt.want == "" {
				want := fmt.Sprintf("made %d\nheld", tt.threads)
				if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, want) {
					t.Fatalf("outcome %+v, stdout %q: want %q, the threads held to the end", s.rec.Outcome,
						s.stdout, want)
				}
				return
			}
			wantCode(t, s, tt.want, fmt.Sprintf("threads, more than the %d the supervisor lets it run",
				workerThreads))
			if strings.Contains(s.stdout, "held") {
				t.Fatalf("stdout %q: the program held its threads to its end", s.stdout)
			}
		})
	}
}

// TestTempDirCountsWhatAThreadHolds: a program granted ffi:ctypes under
// --confine strict makes a 1 GiB file in its private temporary
// directory, then a thread with a raw clone call with every flag the Go
// runtime passes but CLONE_FILES: the thread's table of descriptors is a
// copy of the worker's. The worker closes its descriptor and removes the
// file, which the thread alone still holds: the supervisor, which reads
// the worker's own table (/proc/PID/fd), did not count it, and the run
// held it to its end, ok (each such thread a table of up to 4,096
// descriptors of its own, past the descriptor limit). The filter refuses
// a thread made without CLONE_FILES. The control: a thread made with it,
// and the file held by the worker's own descriptor, is counted (E330).
func TestTempDirCountsWhatAThreadHolds(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("the thread's code is amd64's, not %s's", runtime.GOARCH)
	}
	const hide = threadLoop + `# O_RDWR|O_CREAT, 0600
h = c.syscall("openat", -100, tmp + "/hidden", 0x42, 384)
g = c.syscall("ftruncate", h.ret, 1 << 30)
print("openat errno=%s ftruncate errno=%s" % (h.errno, g.errno))
t = c.syscall("clone", int(ARGS[0]), base + 0x800, 0, 0, 0)
print("clone errno=%s." % t.errno)
if ARGS[1] != "keep":
    c.syscall("close", h.ret)
u = c.syscall("unlinkat", -100, tmp + "/hidden", 0)
print("unlinkat errno=%s" % u.errno)
c.syscall("nanosleep", le(int(ARGS[2])) + le(0), 0)
print("held")
`
	const (
		// CLONE_VM|CLONE_FS|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM
		ownTable = 0x50b00
		// and CLONE_FILES: the Go runtime's flags
		sharedTable = ownTable | 0x400
	)
	hold, timeout := holdFor()
	secs := fmt.Sprint(int(hold.Seconds()))
	for _, tt := range []struct {
		name  string
		flags int
		keep  string
		want  codes.Code
	}{
		{name: "held by a thread of its own table", flags: ownTable, keep: "close"},
		{name: "the control: held by the worker's own table", flags: sharedTable, keep: "keep",
			want: codes.E330},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, hide, []string{"io", "ffi:ctypes", "ffi:os"}, func(r *Run) {
				r.Args = []string{fmt.Sprint(tt.flags), tt.keep, secs}
				r.Confine, r.Timeout = core.ModeStrict, timeout
			})
			t.Logf("outcome %s %q, level %s, stdout %q", s.rec.Outcome.Code, s.rec.Outcome.Message,
				s.rec.RunParameters.Confinement, s.stdout)
			if level := s.rec.RunParameters.Confinement; level != "full" {
				t.Skipf("the run's level is %s, not full: %s", level, s.rec.RunParameters.ConfinementReason)
			}
			if tt.want != "" {
				if !strings.Contains(s.stdout, "clone errno=.") {
					t.Fatalf("stdout %q: want the thread made", s.stdout)
				}
				wantCode(t, s, tt.want, "removed from it while held open")
				return
			}
			if !strings.Contains(s.stdout, "clone errno=EPERM.") {
				t.Fatalf("outcome %s %q, stdout %q: want the thread refused (EPERM)", s.rec.Outcome.Code,
					s.rec.Outcome.Message, s.stdout)
			}
			if s.rec.Outcome.Status != receipt.StatusOK || !strings.Contains(s.stdout, "held") {
				t.Fatalf("outcome %+v, stdout %q: want the run to its end, nothing held", s.rec.Outcome,
					s.stdout)
			}
		})
	}
}

// TestWorkerLendsNoPriority: a program granted ffi:ctypes under
// --confine strict puts the id of another process's thread (a sleep the
// test started, at nice 19) in a word of its own memory and locks it with
// futex(FUTEX_LOCK_PI). The kernel took that thread as the lock's owner
// and lent it the worker's priority while the worker waited: the sleep's
// /proc/PID/stat read priority 20, not its own 39, and setpriority on it
// is refused. The filter refuses every priority-inheritance operation;
// the sleep's priority, read from outside while the run waits, stays its
// own. The control: a FUTEX_WAIT on the same word waits out its timeout.
func TestWorkerLendsNoPriority(t *testing.T) {
	const lock = `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
def le(v):
    return bytes([(v >> (8 * i)) & 0xff for i in range(8)])
base = 0x310000000000
# PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED_NOREPLACE
m = c.syscall("mmap", base, 4096, 3, 0x100022, -1, 0)
fd = c.syscall("openat", -100, tmp + "/word", 0x42, 384)  # O_RDWR|O_CREAT, 0600
w = c.syscall("write", fd.ret, le(int(ARGS[0])), 8)
r = c.syscall("pread64", fd.ret, base, 8, 0)
print("mmap errno=%s openat errno=%s write errno=%s pread64 errno=%s" % (
    m.errno, fd.errno, w.errno, r.errno))
f = c.syscall("futex", base, int(ARGS[1]), int(ARGS[0]), le(int(ARGS[2])) + le(0), 0, 0)
print("futex errno=%s." % f.errno)
`
	const (
		futexLockPI      = 6   // FUTEX_LOCK_PI: its timeout is a time of CLOCK_REALTIME
		futexWaitPrivate = 128 // FUTEX_WAIT|FUTEX_PRIVATE_FLAG: its timeout is a length
	)
	hold, timeout := holdFor()
	for _, tt := range []struct {
		name    string
		op      int
		timeout func() int64
		want    string
	}{
		{name: "FUTEX_LOCK_PI of a word naming the sleep", op: futexLockPI,
			timeout: func() int64 { return time.Now().Add(hold).Unix() + 1 }, want: "futex errno=EPERM."},
		{name: "the control: FUTEX_WAIT of that word", op: futexWaitPrivate,
			timeout: func() int64 { return int64(hold.Seconds()) }, want: "futex errno=ETIMEDOUT."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sleep := exec.Command("sleep", "300")
			if err := sleep.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				sleep.Process.Kill()
				sleep.Wait()
			}()
			pid := sleep.Process.Pid
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, pid, 19); err != nil {
				t.Fatal(err)
			}
			own := priorityOf(t, pid)
			// The sleep's priority, read from outside until the run ends.
			done, lowest := make(chan struct{}), make(chan int, 1)
			go func() {
				low := own
				for {
					select {
					case <-done:
						lowest <- low
						return
					default:
					}
					if p, err := proc.Priority(pid); err == nil && p < low {
						low = p
					}
					time.Sleep(time.Millisecond)
				}
			}()
			s := superviseProgram(t, lock, []string{"io", "ffi:ctypes", "ffi:os"}, func(r *Run) {
				r.Args = []string{fmt.Sprint(pid), fmt.Sprint(tt.op), fmt.Sprint(tt.timeout())}
				r.Confine, r.Timeout = core.ModeStrict, timeout
			})
			close(done)
			low := <-lowest
			t.Logf("outcome %s %q, level %s, stdout %q; the sleep's priority %d, at its lowest %d",
				s.rec.Outcome.Code, s.rec.Outcome.Message, s.rec.RunParameters.Confinement, s.stdout, own, low)
			if level := s.rec.RunParameters.Confinement; level != "full" {
				t.Skipf("the run's level is %s, not full: %s", level, s.rec.RunParameters.ConfinementReason)
			}
			made := "mmap errno= openat errno= write errno= pread64 errno=\n"
			if s.rec.Outcome.Status != receipt.StatusOK || !strings.HasPrefix(s.stdout, made) {
				t.Fatalf("outcome %+v, stdout %q: want the word made (%q)", s.rec.Outcome, s.stdout, made)
			}
			if low != own {
				t.Errorf("the sleep's priority was %d while the run waited, not its own %d: the worker "+
					"lent it its own", low, own)
			}
			if !strings.Contains(s.stdout, tt.want) {
				t.Errorf("stdout %q, want %q", s.stdout, tt.want)
			}
		})
	}
}

// priorityOf is proc.Priority's, or fails the test.
func priorityOf(t *testing.T, pid int) int {
	t.Helper()
	p, err := proc.Priority(pid)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestThreadsWithinItsBound: threadsWithin reads a process's threads
// from outside (a sleep the test started: one thread) and says E310 only
// past workerThreads: a sleep at the bound (workerThreads 1) is within
// it, one past it (workerThreads 0) is not; a process that has exited
// and been waited for, whose count cannot be read, says nothing (its
// exit ends the step). The bound is linux.MaxThreads and one for each
// processor beside it, as docs/os-enforces.md says.
func TestThreadsWithinItsBound(t *testing.T) {
	if min := linux.MaxThreads + runtime.NumCPU(); workerThreads < min {
		t.Errorf("workerThreads %d, want at least %d (linux.MaxThreads and one a processor)",
			workerThreads, min)
	}
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = sleep.Process.Kill()
		_ = sleep.Wait()
	}()
	pid := sleep.Process.Pid
	if n, ok := threadsOf(pid); !ok || n != 1 {
		t.Fatalf("threadsOf(the sleep) = %d, %v; want 1, true", n, ok)
	}
	was := workerThreads
	defer func() { workerThreads = was }()
	workerThreads = 1
	if err := threadsWithin(pid); err != nil {
		t.Errorf("one thread, a bound of 1: %v; want nothing said", err)
	}
	workerThreads = 0
	if err := threadsWithin(pid); codes.CodeOf(err) != codes.E310 ||
		!strings.Contains(err.Error(), "ran 1 threads, more than the 0") {
		t.Errorf("one thread, a bound of 0: %v; want E310 naming both", err)
	}
	_ = sleep.Process.Kill()
	_ = sleep.Wait()
	if err := threadsWithin(pid); err != nil {
		t.Errorf("a process waited for, a bound of 0: %v; want nothing said", err)
	}
}

// holdFor is how long a program of these tests holds what the
// supervisor's watch must see (the watch's 50 reads), scaled by the
// machine's load (testkit.Bound), and the run's timeout: the hold and a
// minute more. With the runs' fixed timeout of a minute, a load of 24 on
// two processors made the hold alone a minute, and the run ended E307
// before the program did.
func holdFor() (hold, timeout time.Duration) {
	hold = testkit.Bound(50 * BoundsWatchEvery)
	return hold, hold + time.Minute
}
