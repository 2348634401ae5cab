//go:build unix

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
)

// TestPoolJobUntaken: a run given to a worker that ended before it began
// the job goes to a new worker and ends ok, its receipt whole, and the
// worker it was first given to is gone; nothing of the run had begun.
// Three ways a worker ends so, each made here as it happens after a kill
// the pool has not seen yet: its request pipe has no reader when the job
// is written (the write fails, EPIPE: the idle worker's pipe swapped for
// one whose read end the test closed, the worker alive and unseen as
// ended); the job lies whole in the pipe when the worker dies (stopped,
// given the job, then killed); and the job was read out of the pipe, as
// a thread woken by the kill reads it, and never begun (the same, the
// job read through the worker's descriptor before the kill). The last
// two on Linux, where the worker counts the jobs it begins on a page it
// shares with the supervisor (wire.Began). The control: the run after
// each goes to the worker that took it, no other started. A worker
// killed once it has begun its job ends that run killed
// (TestPoolReplacesAKilledWorker).
func TestPoolJobUntaken(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.vel"), []byte("print(\"hello\")\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io"), Workers: 1,
		Confine: core.ModeOff, ImportRoot: dir, Receipts: t.TempDir()})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	defer p.Close()
	// runOK is a run of hello.vel on the pool, or why it is not one that
	// ended ok; run fails t with it.
	runOK := func(what string) (*receipt.Receipt, error) {
		res, err := p.Run(context.Background(), PoolRun{Program: "hello.vel"})
		if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK || string(res.Stdout) != "hello\n" {
			return nil, fmt.Errorf("%s: %v, outcome %+v, output %q", what, err, res.Receipt.Outcome,
				res.Stdout)
		}
		return res.Receipt, nil
	}
	run := func(t *testing.T, what string) *receipt.Receipt {
		t.Helper()
		rec, err := runOK(what)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	run(t, "the first run")
	// idle is the pool's idle worker, for a case to break.
	idle := func(t *testing.T, change func(w *poolWorker)) {
		t.Helper()
		s := <-p.slots
		defer func() { p.slots <- s }()
		if s.w == nil {
			t.Fatal("the slot holds no idle worker")
		}
		change(s.w)
	}

	// stoppedThenKilled runs hello.vel on the pool's idle worker stopped
	// in every thread, and kills the worker once the job lies in its
	// request pipe; with take, the job is first read out of the pipe
	// through the worker's own descriptor (/proc/PID/fd/3), as a thread
	// woken by the kill reads it before it dies.
	stoppedThenKilled := func(t *testing.T, take bool) *receipt.Receipt {
		t.Helper()
		var pid int
		var req *os.File
		idle(t, func(pw *poolWorker) { pid, req = pw.pid, pw.reqW })
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		killed := false
		defer func() {
			if !killed { // a failure below leaves no stopped worker behind
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}()
		// Stopped in every thread before the job is written, so that
		// none took it as the stop came.
		for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); !stopped(pid); {
			if time.Now().After(deadline) {
				t.Fatalf("worker %d did not stop", pid)
			}
			time.Sleep(time.Millisecond)
		}
		type ran struct {
			rec *receipt.Receipt
			err error
		}
		got := make(chan ran, 1) // the run's goroutine never fails t itself
		go func() {
			rec, err := runOK("the run whose job the worker never began")
			got <- ran{rec, err}
		}()
		for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); wire.Unread(req) == 0; {
			if time.Now().After(deadline) {
				t.Fatal("the job never reached the stopped worker's pipe")
			}
			time.Sleep(time.Millisecond)
		}
		if take {
			theirs, err := os.OpenFile("/proc/"+strconv.Itoa(pid)+"/fd/3", os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			n, err := theirs.Read(make([]byte, 64<<10))
			theirs.Close()
			if err != nil || wire.Unread(req) != 0 {
				t.Fatalf("the job read out of the worker's pipe: %d bytes, %v, %d left", n, err,
					wire.Unread(req))
			}
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed = true
		r := <-got
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.rec
	}
	for _, tc := range []struct {
		name      string
		linuxOnly bool
		// run runs hello.vel on the pool's idle worker, broken its way.
		run func(t *testing.T) *receipt.Receipt
	}{
		{name: "no reader of its request pipe", run: func(t *testing.T) *receipt.Receipt {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			if _, err := w.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
				t.Fatalf("a write on the swapped pipe: %v, want EPIPE", err)
			}
			idle(t, func(pw *poolWorker) {
				own := pw.reqW // the worker's own pipe, which it keeps reading
				t.Cleanup(func() { own.Close() })
				pw.reqW = w
			})
			return run(t, "the run written to a pipe no worker reads")
		}},
		{name: "its job whole in the pipe when it died", linuxOnly: true, run: func(t *testing.T) *receipt.Receipt {
			return stoppedThenKilled(t, false)
		}},
		{name: "its job read and not begun when it died", linuxOnly: true, run: func(t *testing.T) *receipt.Receipt {
			return stoppedThenKilled(t, true)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.linuxOnly && goruntime.GOOS != "linux" {
				t.Skipf("only Linux counts the jobs a worker begins (wire.Began); this is %s",
					goruntime.GOOS)
			}
			before := p.Workers()
			if len(before) != 1 {
				t.Fatalf("workers %v, want one", before)
			}
			rec := tc.run(t)
			if rec.RunParameters.Durability == "" || rec.Confinement().Level == "" {
				t.Errorf("its receipt lacks its parameters or its level: %+v", rec)
			}
			after := p.Workers()
			if len(after) != 1 || after[0] == before[0] {
				t.Errorf("workers %v after it, want one other than %v", after, before)
			}
			if err := syscall.Kill(before[0], 0); err != syscall.ESRCH {
				t.Errorf("the worker the run was first given to, %d: signal 0 says %v, "+
					"want it gone (ESRCH)", before[0], err)
			}
			run(t, "the control")
			if now := p.Workers(); !slices.Equal(now, after) {
				t.Errorf("workers %v after the control, want %v: the one that took the last run",
					now, after)
			}
		})
	}
}

// stopped says whether every thread of process pid is stopped (state T
// in /proc/PID/task/TID/stat).
func stopped(pid int) bool {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/stat")
		_, after, ok := strings.Cut(string(stat), ") ")
		if err != nil || !ok || !strings.HasPrefix(after, "T") {
			return false
		}
	}
	return true
}

// TestPoolTrialLeavesNoWorker: the worker of a trial start (tryStart),
// retired at once, is not among the pool's workers afterwards, which are
// the same as before it and each alive (Workers feeds a door's count of
// idle workers).
func TestPoolTrialLeavesNoWorker(t *testing.T) {
	dir := t.TempDir()
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io"), Workers: 1,
		Confine: core.ModeOff, ImportRoot: dir, Receipts: t.TempDir()})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	defer p.Close()
	before := p.Workers()
	p.tryStart()
	after := p.Workers()
	slices.Sort(before)
	slices.Sort(after)
	if !slices.Equal(before, after) {
		t.Errorf("workers %v before the trial, %v after; want the same", before, after)
	}
	for _, pid := range after {
		if live, _ := procState(pid); !live {
			t.Errorf("worker %d is not alive", pid)
		}
	}
}
