//go:build linux

package confine

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
)

// procStat reads a process's session id and parent from /proc/PID/stat.
func procStat(t *testing.T, pid int) (sid, ppid int) {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid pgrp session ...; comm may hold spaces.
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	ppid, _ = strconv.Atoi(f[1])
	sid, _ = strconv.Atoi(f[3])
	return sid, ppid
}

// gone waits for pid to be gone or a zombie, up to testkit.Bound(2s).
func gone(pid int) bool {
	deadline := time.Now().Add(testkit.Bound(2 * time.Second))
	for ; time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return true
		}
	}
	return false
}

func TestSeamLinuxSessionAndGroupKill(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    core.Policy
	}{
		{name: "a confined run", p: core.Policy{Enforced: true}},
		{name: "--no-confine keeps the worker's life tied to the run", p: core.Policy{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The worker stands in as a shell that starts a process of its own.
			cmd := exec.Command("/bin/sh", "-c", "sleep 60 & echo $!; wait")
			cmd.SysProcAttr = &syscall.SysProcAttr{GidMappingsEnableSetgroups: true} // set by the caller, kept
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			s, err := PrepareWorker(cmd, tt.p, WorkerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !cmd.SysProcAttr.GidMappingsEnableSetgroups || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
				t.Fatalf("SysProcAttr = %+v: a field the caller set was lost, or no parent-death signal", cmd.SysProcAttr)
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			if err := s.AfterStart(cmd.Process.Pid); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			child, _ := strconv.Atoi(strings.TrimSpace(line))
			if sid, _ := procStat(t, cmd.Process.Pid); sid != cmd.Process.Pid {
				t.Errorf("the worker's session is %d, want its own (%d)", sid, cmd.Process.Pid)
			}
			if sid, _ := procStat(t, child); sid != cmd.Process.Pid {
				t.Errorf("the worker's child's session is %d, want the worker's (%d)", sid, cmd.Process.Pid)
			}
			// Positive control: before Kill the child is alive.
			if err := syscall.Kill(child, 0); err != nil {
				t.Fatalf("the worker's child %d is not there before Kill: %v", child, err)
			}
			if err := s.Kill(); err != nil {
				t.Fatal(err)
			}
			if !gone(child) {
				t.Errorf("the worker's child %d outlived Kill", child)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// seamHelperEnv makes the test binary a supervisor that prepares and
// starts a worker (sleep), prints its pid and waits to be killed.
const seamHelperEnv = "SABLINE_SEAM_HELPER"

func TestSeamLinuxParentDeath(t *testing.T) {
	if os.Getenv(seamHelperEnv) == "1" {
		cmd := exec.Command("sleep", "60")
		s, err := PrepareWorker(cmd, core.Policy{Enforced: true}, WorkerOptions{})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if err := s.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		_ = cmd.Wait()
		os.Exit(0)
	}
	sup := exec.Command(os.Args[0], "-test.run=^TestSeamLinuxParentDeath$")
	sup.Env = append(os.Environ(), seamHelperEnv+"=1")
	out, err := sup.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = sup.Process.Kill()
		t.Fatal(err)
	}
	worker, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		_ = sup.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	// Positive control: the worker lives while its supervisor does.
	if _, ppid := procStat(t, worker); ppid != sup.Process.Pid {
		t.Fatalf("the worker's parent is %d, want the supervisor %d", ppid, sup.Process.Pid)
	}
	if err := sup.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = sup.Wait()
	if !gone(worker) {
		_ = syscall.Kill(worker, syscall.SIGKILL)
		t.Fatalf("the worker %d outlived its supervisor's kill -9", worker)
	}
}

// TestSeamLinuxWorkerOutlivesItsCallersThread starts a worker from a
// goroutine locked to its thread, which then ends, and reads from the
// worker's exit status whether the kernel sent it its parent-death signal
// (SIGKILL) or it lived until the test's own SIGTERM. The control starts
// the same prepared command with cmd.Start on the ending thread: the
// kernel kills it, which shows the test can see the signal.
func TestSeamLinuxWorkerOutlivesItsCallersThread(t *testing.T) {
	for _, tt := range []struct {
		name       string
		start      func(Started, *exec.Cmd) error
		wantSignal syscall.Signal
	}{
		{name: "Started.Start", start: func(s Started, _ *exec.Cmd) error { return s.Start() },
			wantSignal: syscall.SIGTERM},
		{name: "control: cmd.Start on the ending thread",
			start:      func(_ Started, cmd *exec.Cmd) error { return cmd.Start() },
			wantSignal: syscall.SIGKILL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "60")
			s, err := PrepareWorker(cmd, core.Policy{}, WorkerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var startErr error
			tid := onEndingThread(func() { startErr = tt.start(s, cmd) })
			if startErr != nil {
				t.Fatal(startErr)
			}
			defer s.Close()
			// The signal is sent as the thread exits, before its task is
			// released from /proc.
			task := fmt.Sprintf("/proc/self/task/%d", tid)
			for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; {
				if _, err := os.Stat(task); errors.Is(err, fs.ErrNotExist) {
					break
				}
				if time.Now().After(deadline) {
					_ = s.Kill()
					t.Fatalf("the starting thread %d has not ended", tid)
				}
				time.Sleep(time.Millisecond)
			}
			// A process already sent SIGKILL ignores this one.
			_ = cmd.Process.Signal(syscall.SIGTERM)
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the worker ended with %v, want a signal", err)
			}
			ws := exit.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != tt.wantSignal {
				t.Errorf("the worker ended with %v, want %v", exit, tt.wantSignal)
			}
		})
	}
}

// onEndingThread runs f on a goroutine locked to a thread that ends with
// it, and returns the thread's id. Never the main thread, which the Go
// runtime keeps when a goroutine locked to it ends: a goroutine that
// lands there holds it while another runs f.
func onEndingThread(f func()) int {
	tid := make(chan int, 1)
	go func() {
		runtime.LockOSThread() // never unlocked
		if unix.Gettid() == unix.Getpid() {
			tid <- onEndingThread(f)
			runtime.UnlockOSThread()
			return
		}
		f()
		tid <- unix.Gettid()
	}()
	return <-tid
}

// TestLastingThreadsSideBySide: a function that hangs on one lasting
// thread holds up no other, each runs on a thread of its own that
// outlives it, and a thread given back is taken again, not a new one made.
func TestLastingThreadsSideBySide(t *testing.T) {
	var l lastingThreads
	tidOf := func(s chan<- func(), f func()) <-chan int {
		tid := make(chan int, 1)
		go func() { s <- func() { f(); tid <- unix.Gettid() } }() // a busy thread takes none
		return tid
	}
	hang := make(chan struct{})
	a, b := l.take(), l.take()
	aTid := tidOf(a, func() { <-hang })
	var bTid int
	select {
	case bTid = <-tidOf(b, func() {}):
	case <-time.After(testkit.Bound(10 * time.Second)):
		close(hang)
		t.Fatal("the second thread's function waited for the first's, which hangs")
	}
	close(hang)
	first := <-aTid
	if first == bTid {
		t.Fatalf("both functions ran on thread %d", first)
	}
	l.put(a)
	l.put(b)
	c := l.take()
	if c != a && c != b {
		t.Error("take made a thread where one given back was idle")
	}
	if tid := <-tidOf(c, func() {}); tid != first && tid != bTid {
		t.Errorf("a thread taken again ran its function on thread %d, not %d or %d",
			tid, first, bTid)
	}
	for _, tid := range []int{first, bTid} {
		if _, err := os.Stat(fmt.Sprintf("/proc/self/task/%d", tid)); err != nil {
			t.Errorf("lasting thread %d: %v", tid, err)
		}
	}
}

// procState is the state letter /proc/PID/stat gives pid ("Z" for a
// process that ended and was not reaped), or "gone" where there is none.
func procState(pid int) string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "gone"
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(f) == 0 {
		return "gone"
	}
	return f[0]
}

// TestWaitKillsTheGroupBeforeTheReap: Wait kills the worker's process
// group while the worker has ended and is not yet reaped (a zombie, state
// Z in /proc/PID/stat), when its pid, the group's id, is no other
// process's; then it reaps it, with the worker's own status, and a Kill
// after that signals no group: the kernel may have given the pid to
// another process's group by then. The control: what the worker left in
// its group is killed by the Wait alone.
func TestWaitKillsTheGroupBeforeTheReap(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & echo $!")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	started, err := PrepareWorker(cmd, core.Policy{Enforced: true}, WorkerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := started.(*processStarted)
	if !ok {
		t.Fatalf("PrepareWorker gave a %T, not the process's own Started", started)
	}
	kill := s.kill
	var killedAt []string // the worker's state at each kill of its group
	s.kill = func(pid int) error {
		killedAt = append(killedAt, procState(pid))
		return kill(pid)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.AfterStart(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the worker said %q, not its child's pid", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait: %v, want the worker's own exit, 0", err)
	}
	if len(killedAt) != 1 || killedAt[0] != "Z" {
		t.Fatalf("the worker's group was killed with the worker %q, want once, while it was "+
			"ended and not reaped (Z)", killedAt)
	}
	if !gone(child) {
		t.Errorf("the worker's child %d, in its group, outlived Wait", child)
	}
	killedAt = nil
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if len(killedAt) != 0 {
		t.Errorf("Kill after the worker was reaped killed the group its pid named (%q)", killedAt)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
