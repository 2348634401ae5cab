package run

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// TestWorkerReadsNoOtherProcessCPUTime: clock_gettime takes a CPU clock
// by the id of its process (MAKE_PROCESS_CPUCLOCK: ~pid << 3, and which
// clock), and the kernel answers it for any pid of the machine, with no
// permission check. A strict run granted ffi:ctypes read the processor
// time of a shell the test started, to the nanosecond, at level full:
// the time the scheduler gave for it in its /proc/PID/schedstat, read from
// outside, as it would read another tenant's run's.
// The filter now allows the CPU clocks of the worker alone (its pid, or 0
// for the caller): the shell's is refused, EPERM, and nothing is read.
// The control: the worker's own CPU clock, named by its pid, is read, a
// time more than 0 and under what the run took on every processor.
func TestWorkerReadsNoOtherProcessCPUTime(t *testing.T) {
	const program = `c = ffi.module("ctypes")
pid = int(ARGS[0])
if pid == 0:
    pid = c.syscall("getpid").ret
m = c.syscall("mmap", 0, 4096, 3, 0x22, -1, 0)  # PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS
r = c.syscall("clock_gettime", ((~pid) << 3) | 2, m.ret)  # CPUCLOCK_SCHED of pid
print("mmap errno=%s clock_gettime errno=%s" % (m.errno, r.errno))
if r.errno == "":
    c.syscall("write", 1, m.ret, 16)  # the struct timespec read
`
	// The shell spins, then becomes a sleep: its processor time, read
	// from outside, then stays what it is.
	shell := exec.Command("sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exec sleep 300")
	if err := shell.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		shell.Process.Kill()
		shell.Wait()
	})
	pid := shell.Process.Pid
	deadline := time.Now().Add(testkit.Bound(30 * time.Second))
	for {
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil {
			t.Fatal(err)
		}
		state, err := proc.State(pid)
		if err != nil {
			t.Fatal(err)
		}
		if string(comm) == "sleep\n" && state == 'S' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell never became a sleep, sleeping: %q, state %c", comm, state)
		}
		time.Sleep(time.Millisecond)
	}
	// Its one thread's time on the processor, in nanoseconds, as the
	// scheduler counts it: the first field of /proc/PID/schedstat.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		t.Skipf("no scheduler statistics to read the shell's time from outside: %v", err)
	}
	ns, err := strconv.ParseInt(strings.Fields(string(stat))[0], 10, 64)
	if err != nil {
		t.Fatalf("/proc/%d/schedstat %q: %v", pid, stat, err)
	}
	shellTime := time.Duration(ns)
	for _, tt := range []struct {
		name string
		pid  int
	}{
		{name: "the CPU clock of a shell the test started", pid: pid},
		{name: "the control: the worker's own CPU clock, by its pid", pid: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, program, []string{"io", "ffi:ctypes"}, func(r *Run) {
				r.Args = []string{fmt.Sprint(tt.pid)}
				r.Confine = core.ModeStrict
			})
			line, rest, _ := strings.Cut(s.stdout, "\n")
			var read time.Duration
			if len(rest) >= 16 {
				sec, nsec := binary.NativeEndian.Uint64([]byte(rest)), binary.NativeEndian.Uint64([]byte(rest[8:]))
				read = time.Duration(sec)*time.Second + time.Duration(nsec)
			}
			t.Logf("outcome %s %q, level %s, %q; the time read %v, the shell's from outside %v",
				s.rec.Outcome.Code, s.rec.Outcome.Message, s.rec.RunParameters.Confinement, line, read,
				shellTime)
			if level := s.rec.RunParameters.Confinement; level != "full" {
				t.Skipf("the run's level is %s, not full: %s", level, s.rec.RunParameters.ConfinementReason)
			}
			if s.rec.Outcome.Status != receipt.StatusOK || !strings.HasPrefix(line, "mmap errno= ") {
				t.Fatalf("outcome %+v, stdout %q: want a page mapped", s.rec.Outcome, s.stdout)
			}
			if tt.pid != 0 {
				if line != "mmap errno= clock_gettime errno=EPERM" || rest != "" {
					t.Errorf("stdout %q: want the clock refused (EPERM), and no time read; the run read "+
						"%v, the shell's processor time from outside %v", s.stdout, read, shellTime)
				}
				return
			}
			most := s.wall * time.Duration(runtime.NumCPU())
			if line != "mmap errno= clock_gettime errno=" || read <= 0 || read > most {
				t.Errorf("stdout %q: want the worker's own processor time read, more than 0 and at "+
					"most %v, got %v", s.stdout, most, read)
			}
		})
	}
}
