package run

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// pidNamespacePart is the part of TestNoGroupKilledOnceItsPidIsGivenBack
// done in a process of its own, the first of a pid namespace of its own.
const pidNamespacePart = "pid namespace"

// TestNoGroupKilledOnceItsPidIsGivenBack: a worker leads a process group
// of its own, whose id is its pid, and the supervisor kills that group
// (SIGKILL) to end what the worker left in it. It did so after it had
// reaped the worker too (once the worker's exit was waited for, and again
// when the worker was retired: a pool's worker that died idle is retired
// by the next run that finds it dead, any time later), when the pid was
// the kernel's to give to any process: one that took it and led a group
// of its own (another worker, of another tenant, in a session of its own
// as every worker is) was killed. Here, in a pid namespace of the test's
// own, a pool's worker is killed while idle, the pid it had is given to a
// process that leads its own group (ns_last_pid), and the pool's next run
// retires the dead worker: that process lives on, and the run is served
// by a new worker. The control: a process the worker left in its group
// when it died is still killed.
func TestNoGroupKilledOnceItsPidIsGivenBack(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) == pidNamespacePart {
		inPidNamespace(t)
		return
	}
	flags := uintptr(syscall.CLONE_NEWPID | syscall.CLONE_NEWNS)
	try := exec.Command("/bin/true")
	try.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
	if err := try.Run(); err != nil {
		t.Skipf("a pid namespace cannot be made here (%v): the test gives a worker's pid to "+
			"another process there, where no other process takes it first", err)
	}
	testkit.Rerun(t, pidNamespacePart, func(cmd *exec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
	})
}

// inPidNamespace is the test, as the first process of a pid namespace
// and a mount namespace of its own, with /proc mounted for its pids.
func inPidNamespace(t *testing.T) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		t.Fatalf("make the mounts private: %v", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC,
		""); err != nil {
		t.Fatalf("mount /proc for this pid namespace: %v", err)
	}
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "hello.vel"), "print(\"hello\")\n")
	pidFile := filepath.Join(dir, "left.pid")
	q := strconv.Quote(pidFile)
	testkit.WriteFile(t, filepath.Join(dir, "leave.vel"), `os = ffi.module("os")
os.system("sleep 3600 </dev/null >/dev/null 2>&1 & echo $! > `+q[1:len(q)-1]+`.tmp && mv `+
		q[1:len(q)-1]+`.tmp `+q[1:len(q)-1]+` && wait")
`)
	t.Run("the control: what the dead worker left in its group is killed", func(t *testing.T) {
		p := namespacePool(t, dir, "io,ffi:os")
		got := make(chan *PoolResult, 1)
		go func() {
			res, _ := p.Run(context.Background(), PoolRun{Program: "leave.vel"})
			got <- res
		}()
		left := readPid(t, pidFile)
		worker := onlyWorker(t, p)
		if pgid, err := syscall.Getpgid(left); err != nil || pgid != worker {
			t.Fatalf("the process the run left is in group %d (%v), not its worker's, %d", pgid, err,
				worker)
		}
		// Killed from outside, the worker kills nothing it started itself.
		if err := syscall.Kill(worker, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		res := <-got
		if res == nil || res.Receipt.Outcome.Status == receipt.StatusOK {
			t.Fatalf("the run of a worker killed ended %+v, want it not ok", res)
		}
		waitGone(t, left, "the process the dead worker left in its group", true)
	})
	t.Run("a process given the dead worker's pid lives on", func(t *testing.T) {
		p := namespacePool(t, dir, "io")
		worker := onlyWorker(t, p)
		if err := syscall.Kill(worker, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitGone(t, worker, "the worker killed", false)
		victim := leaderAt(t, worker)
		ended := make(chan error, 1)
		go func() { ended <- victim.Wait() }()
		res, err := p.Run(context.Background(), PoolRun{Program: "hello.vel"})
		if err != nil || string(res.Stdout) != "hello\n" {
			t.Fatalf("the run after the worker died: %v, output %q; want hello from a new worker",
				err, res.Stdout)
		}
		// The run retired the dead worker before it ran: a kill it sent
		// is delivered by now. Ours ends the process either way, and its
		// status says whose came first.
		_ = victim.Process.Signal(syscall.SIGTERM)
		<-ended
		if sig, ok := testkit.EndedBy(victim.ProcessState); !ok || sig != syscall.SIGTERM {
			t.Fatalf("the process given pid %d, leader of its own group, ended %v, not by the "+
				"test's SIGTERM: the pool killed it, retiring the worker that had the pid before",
				worker, victim.ProcessState)
		}
	})
}

// namespacePool starts a pool of one unconfined worker under allow in dir,
// closed with the test, and runs hello.vel on it.
func namespacePool(t *testing.T, dir, allow string) *Pool {
	t.Helper()
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, allow), Workers: 1,
		Confine: core.ModeOff, ImportRoot: dir, Receipts: t.TempDir()})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	if res, err := p.Run(context.Background(), PoolRun{Program: "hello.vel"}); err != nil ||
		string(res.Stdout) != "hello\n" {
		t.Fatalf("the pool's first run: %v", err)
	}
	return p
}

// onlyWorker is the pid of p's one worker.
func onlyWorker(t *testing.T, p *Pool) int {
	t.Helper()
	pids := p.Workers()
	if len(pids) != 1 {
		t.Fatalf("the pool has workers %v, want one", pids)
	}
	return pids[0]
}

// readPid reads the pid a program wrote in path, once it is there.
func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(20 * time.Second))
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone waits until pid names no living process: none at all, or, with
// zombies, one that has ended and not been reaped (this process, the
// namespace's first, is given its orphans and reaps none).
func waitGone(t *testing.T, pid int, what string, zombies bool) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(20 * time.Second))
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if i := strings.LastIndexByte(string(stat), ')'); zombies && err == nil && i > 0 &&
			len(stat) > i+2 && stat[i+2] == 'Z' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s, pid %d, is still there", what, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// leaderAt starts a process that leads a session and a group of its
// own, as a worker does, at pid: the next pid this namespace gives, set
// in ns_last_pid, unless a thread of this process takes it first, when it
// tries again.
func leaderAt(t *testing.T, pid int) *exec.Cmd {
	t.Helper()
	for range 100 {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)),
			0); err != nil {
			t.Fatalf("give pid %d next: %v", pid, err)
		}
		cmd := exec.Command("sleep", "3600")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if cmd.Process.Pid == pid {
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			return cmd
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	t.Fatalf("pid %d was not given to the process started", pid)
	return nil
}
