package run

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// futexVictimPart is the part of TestWorkerTakesNoFutexWaiterOfAnotherProcess
// done in a process of its own: the process whose lock the run reaches for.
const futexVictimPart = "futex victim"

// TestWorkerTakesNoFutexWaiterOfAnotherProcess: a futex without
// FUTEX_PRIVATE_FLAG is known by the file page it lies in, whoever maps
// it, so a word in a file the budget grants for reading only was the
// same futex in the worker as in every other process that maps the file
// (a process-shared lock, as a database keeps in its lock file). A strict
// run granted fs:read of the directory moved another process's waiter
// off that word (FUTEX_CMP_REQUEUE, onto a word of its own memory): the
// process's own wake then found no waiter (it woke 0), and its thread
// waited for good. The filter now allows futex operations on the
// worker's own memory only (FUTEX_PRIVATE_FLAG): the shared form is
// refused, EPERM, and the process's wake finds its waiter. The control:
// the private form is still allowed (it reaches the worker's own memory,
// and moves nothing of the other process's), and the file is still read.
func TestWorkerTakesNoFutexWaiterOfAnotherProcess(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) == futexVictimPart {
		futexVictim(t)
		return
	}
	const program = `c = ffi.module("ctypes")
fd = c.syscall("openat", -100, ARGS[0], 0, 0)  # O_RDONLY: the grant is to read
m = c.syscall("mmap", 0, 4096, 1, 1, fd.ret, 0)  # PROT_READ, MAP_SHARED
own = c.syscall("mmap", 0, 4096, 3, 0x22, -1, 0)  # a page of the worker's own
r = c.syscall("pread64", fd.ret, own.ret, 8, 0)
print("openat errno=%s mmap errno=%s read %d" % (fd.errno, m.errno, r.ret))
f = c.syscall("futex", m.ret, int(ARGS[1]), 0, 2147483647, own.ret, 0)
print("futex errno=%s." % f.errno)
`
	const (
		futexCmpRequeue        = 4   // FUTEX_CMP_REQUEUE: the word's waiters onto another word
		futexCmpRequeuePrivate = 132 // the same, of the caller's own memory (FUTEX_PRIVATE_FLAG)
	)
	for _, tt := range []struct {
		name, want string
		op         int
	}{
		{name: "FUTEX_CMP_REQUEUE of a word in a file granted for reading", op: futexCmpRequeue,
			want: "futex errno=EPERM."},
		{name: "the control: FUTEX_CMP_REQUEUE_PRIVATE of that word", op: futexCmpRequeuePrivate,
			want: "futex errno=."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			lock := filepath.Join(dir, "lock")
			testkit.WriteFile(t, lock, strings.Repeat("\x00", 4096))
			wake := filepath.Join(t.TempDir(), "wake")
			victim := exec.Command(os.Args[0], "-test.run=^TestWorkerTakesNoFutexWaiterOfAnotherProcess$",
				"-test.v", "-test.count=1")
			victim.Env = append(os.Environ(), testkit.OwnProcessEnv+"="+futexVictimPart,
				"FUTEX_VICTIM_LOCK="+lock, "FUTEX_VICTIM_WAKE="+wake)
			out, err := victim.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := victim.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
			lines := bufio.NewScanner(out)
			if !scanTo(lines, "waiting") {
				t.Fatalf("the other process never waited on its lock")
			}
			s := superviseProgram(t, program, []string{"io", "ffi:ctypes", "fs:read:" + dir},
				func(r *Run) {
					r.Args = []string{lock, strconv.Itoa(tt.op)}
					r.Confine = core.ModeStrict
				})
			testkit.WriteFile(t, wake, "")
			woke := ""
			for lines.Scan() {
				if w, ok := strings.CutPrefix(lines.Text(), "woke "); ok {
					woke = w
					break
				}
			}
			t.Logf("outcome %s %q, level %s, stdout %q; the other process's wake woke %s",
				s.rec.Outcome.Code, s.rec.Outcome.Message, s.rec.RunParameters.Confinement, s.stdout,
				woke)
			if level := s.rec.RunParameters.Confinement; level != "full" {
				t.Skipf("the run's level is %s, not full: %s", level, s.rec.RunParameters.ConfinementReason)
			}
			read := "openat errno= mmap errno= read 8\n"
			if s.rec.Outcome.Status != receipt.StatusOK || !strings.HasPrefix(s.stdout, read) {
				t.Fatalf("outcome %+v, stdout %q: want the file read (%q)", s.rec.Outcome, s.stdout, read)
			}
			if !strings.Contains(s.stdout, tt.want) {
				t.Errorf("stdout %q, want %q", s.stdout, tt.want)
			}
			if woke != "1" {
				t.Errorf("the other process's wake of its own lock woke %q waiters, not its one: "+
					"the run moved its waiter away", woke)
			}
		})
	}
}

// scanTo reads lines until one is want, and reports whether one was.
func scanTo(lines *bufio.Scanner, want string) bool {
	for lines.Scan() {
		if lines.Text() == want {
			return true
		}
	}
	return false
}

// futexVictim is the other process: a thread of it waits on the first
// word of the lock file, mapped shared, as a process-shared lock's
// waiter does (FUTEX_WAIT, no FUTEX_PRIVATE_FLAG); once told to, it sets
// the word and wakes one waiter, and says how many its wake woke.
func futexVictim(t *testing.T) {
	f, err := os.OpenFile(os.Getenv("FUTEX_VICTIM_LOCK"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	word := uintptr(unsafe.Pointer(&mem[0]))
	tid := make(chan int)
	go func() {
		runtime.LockOSThread() // ended with the process: the thread may never be woken
		tid <- unix.Gettid()
		_, _, _ = unix.Syscall6(unix.SYS_FUTEX, word, 0, 0, 0, 0, 0) // FUTEX_WAIT, shared
	}()
	// Waiting once its thread is in the futex call, as the kernel says.
	waiting := fmt.Sprintf("/proc/self/task/%d/syscall", <-tid)
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		b, _ := os.ReadFile(waiting)
		if strings.HasPrefix(string(b), strconv.Itoa(unix.SYS_FUTEX)+" ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the thread is not waiting on the word: %s", b)
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Println("waiting")
	for {
		if _, err := os.Stat(os.Getenv("FUTEX_VICTIM_WAKE")); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	*(*uint32)(unsafe.Pointer(&mem[0])) = 1
	n, _, errno := unix.Syscall6(unix.SYS_FUTEX, word, 1, 1, 0, 0, 0) // FUTEX_WAKE, shared
	if errno != 0 {
		t.Fatalf("FUTEX_WAKE: %v", errno)
	}
	fmt.Println("woke", n)
}
