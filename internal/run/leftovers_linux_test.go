package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/receipt"
)

// leftoverProgram starts, under ffi:os, a daemon in a session of its own
// and a process left in the background, each writing its pid to NAME.d
// and NAME.b, then waits in a third (NAME.f) that never ends by itself.
const leftoverProgram = `os = ffi.module("os")
os.system("setsid sh -c 'echo $$ > NAME.d.tmp && mv NAME.d.tmp NAME.d && exec sleep 3600' </dev/null >/dev/null 2>&1 &")
os.system("sh -c 'echo $$ > NAME.b.tmp && mv NAME.b.tmp NAME.b && exec sleep 3600' </dev/null >/dev/null 2>&1 &")
os.system("sh -c 'echo $$ > NAME.f.tmp && mv NAME.f.tmp NAME.f && exec sleep 3600' </dev/null >/dev/null 2>&1")
`

// waitPids waits for the pid files of leftoverProgram's three processes
// named by name, and returns their pids.
func waitPids(t *testing.T, name string) []int {
	t.Helper()
	var pids []int
	for _, ext := range []string{".d", ".b", ".f"} {
		p := name + ext
		for deadline := time.Now().Add(testkit.Bound(20 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
			b, err := os.ReadFile(p)
			if pid, aerr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && aerr == nil {
				pids = append(pids, pid)
				t.Cleanup(func() {
					if sleeping(pid) {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				})
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no pid in %s", p)
			}
		}
	}
	return pids
}

// gone waits for every pid of pids to be neither a sleep nor alive, and
// returns those that are still, once the bound has passed.
func gone(pids []int) (alive []int) {
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		alive = slices.DeleteFunc(slices.Clone(pids), func(pid int) bool { return !sleeping(pid) })
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
	}
}

// workerOf is the worker the supervisor pid started, as its threads'
// children files say, 0 for none.
func workerOf(pid int) int {
	tids, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	for _, tid := range tids {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + tid.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				return c
			}
		}
	}
	return 0
}

// TestSupervisorKilledLeavesNoProcess: a supervisor killed outright
// (SIGKILL) takes its worker down by the parent-death signal, and what the
// worker started lived on: a process left in the background, the one the
// program was waiting in, and a daemon in a session of its own, each a
// sleep 3600 reparented to init, outside every run, and the next run swept
// the run's directory and left them running. The next run ends them with
// the directory. Each is judged from /proc. The control: a run whose
// supervisor lives keeps its processes through the same sweep, its
// directory as old.
func TestSupervisorKilledLeavesNoProcess(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1) to start a daemon with:", err)
	}
	bin, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cache, receipts := filepath.Join(dir, "cache"), filepath.Join(dir, "receipts")
	runs := filepath.Join(cache, filepath.FromSlash(runsDirName))
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, receipt.DirEnv+"="+receipts)
	start := func(name string) (*exec.Cmd, []int) {
		prog := filepath.Join(dir, name+".vel")
		src := strings.ReplaceAll(leftoverProgram, "NAME", filepath.Join(dir, name))
		if err := os.WriteFile(prog, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, prog, "--allow", "io,ffi:os", "--timeout", "1h")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
		return cmd, waitPids(t, filepath.Join(dir, name))
	}
	killed, left := start("killed")
	worker := workerOf(killed.Process.Pid)
	if worker == 0 {
		t.Fatal("the supervisor has no worker")
	}
	live, kept := start("live")
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed.Wait()
	// The worker goes by the parent-death signal: its pid is no
	// process's, or a zombie's until init reaps it.
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(worker) + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); err != nil || (i > 0 && stat[i+2] == 'Z') {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker %d outlived its supervisor killed outright", worker)
		}
	}
	for _, pid := range left {
		if !sleeping(pid) {
			t.Fatalf("process %d the killed run started is gone before the next run: the test "+
				"proves nothing of the sweep", pid)
		}
	}
	// Both directories are made old, past staleAfter: only a lock held
	// tells them apart.
	entries, err := os.ReadDir(runs)
	if err != nil || len(entries) != 2 {
		t.Fatalf("the runs directory holds %d entries (%v), want the two runs'", len(entries), err)
	}
	old := time.Now().Add(-time.Minute)
	for _, e := range entries {
		os.Chtimes(filepath.Join(runs, e.Name()), old, old)
	}
	quick := filepath.Join(dir, "quick.vel")
	os.WriteFile(quick, []byte("x = 1\n"), 0o600)
	next := exec.Command(bin, quick)
	next.Env = env
	if out, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next run: %v: %s", err, out)
	}
	if alive := gone(left); len(alive) > 0 {
		t.Errorf("processes %v of the %v the killed run started (a daemon, one in the background, "+
			"the one it waited in) are alive after the next run swept its directory", alive, left)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 1 {
		t.Errorf("the runs directory holds %d entries after the sweep, want the live run's", len(entries))
	}
	for _, pid := range kept {
		if !sleeping(pid) {
			t.Errorf("process %d of the live run was ended by the sweep", pid)
		}
	}
	if live.ProcessState != nil {
		t.Fatal("the live run ended before the sweep: the test proves nothing of it")
	}
}

// TestPoolSweepsRunsLeftovers: a pool's start sweeps the runs directory
// as a command-line run does, and ends the processes left running with
// the directory of a run whose supervisor was killed outright (a process
// whose TMPDIR is that directory): a process that held pools alone (a
// server, restarted after it was killed) swept nothing, and its killed
// runs' directories and what their workers started stayed. The control: a
// directory as old whose lock is held, as a live supervisor holds its
// run's, is kept, and so is its process.
func TestPoolSweepsRunsLeftovers(t *testing.T) {
	parent, stale, sleep := staleRun(t)
	held := liveRun(t, parent)
	_, waited := leaveSleeping(t, sleep, stale)
	kept, _ := leaveSleeping(t, sleep, held)

	dir := t.TempDir()
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io"), Workers: 1,
		Confine: core.ModeOff, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	select {
	case <-waited:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatalf("the process left with the stale directory %s is alive after the pool started", stale)
	}
	// The directory is removed once its process is ended.
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(stale); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stale directory %s is there after the pool started, want it swept", stale)
		}
	}
	if _, err := os.Stat(held); err != nil {
		t.Errorf("the held directory after the pool started: %v, want it kept", err)
	}
	if !sleeping(kept.Process.Pid) {
		t.Errorf("the held directory's process %d was ended", kept.Process.Pid)
	}
}

// TestSweepEndsLeftoversWhateverTheirTMPDIRsSpelling: a killed run's
// worker hands on its TMPDIR as its supervisor spelled the runs directory
// (through a link: a HOME that is a link to where the home is), and a
// sweeper that spells it otherwise (the home as it resolves) read every
// process's environment for its own spelling alone: it found none, removed
// the directory, and what the worker left ran on for good, no later sweep
// to find it. The leftover is found by the directory its TMPDIR names.
// The controls: a process whose TMPDIR names, by the same link, a
// directory whose lock is held (a live run's) is kept; so is one whose
// TMPDIR has the stale directory's name in another place.
func TestSweepEndsLeftoversWhateverTheirTMPDIRsSpelling(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep(1) to leave running:", err)
	}
	dir := t.TempDir()
	parent, link := filepath.Join(dir, "runs"), filepath.Join(dir, "link")
	if err := os.Mkdir(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(parent, link); err != nil {
		t.Fatal(err)
	}
	stale, err := os.MkdirTemp(parent, tempPrefix)
	if err != nil {
		t.Fatal(err)
	}
	held := liveRun(t, parent)
	elsewhere := filepath.Join(dir, "elsewhere", filepath.Base(stale))
	if err := os.MkdirAll(elsewhere, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	for _, d := range []string{stale, held} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	leave := func(tmp string) *exec.Cmd {
		cmd := exec.Command(sleep, "3600")
		cmd.Env = []string{"TMPDIR=" + tmp}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	left := leave(filepath.Join(link, filepath.Base(stale)))
	kept := leave(filepath.Join(link, filepath.Base(held)))
	namesake := leave(elsewhere)
	for _, c := range []*exec.Cmd{left, kept, namesake} {
		for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); !sleeping(c.Process.Pid); {
			if time.Now().After(deadline) {
				t.Fatalf("process %d is not a sleep before the sweep: the test proves nothing",
					c.Process.Pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waited := make(chan struct{})
	go func() { left.Wait(); close(waited) }()

	removed := sweepTempDirs(parent, time.Now())
	if !slices.Equal(removed, []string{stale}) {
		t.Fatalf("the sweep removed %q, want the stale directory %s alone", removed, stale)
	}
	select {
	case <-waited:
	case <-time.After(testkit.Bound(5 * time.Second)): // sent SIGKILL before the sweep returned
		t.Errorf("process %d, whose TMPDIR names the swept directory %s through the link %s, is "+
			"alive after the sweep", left.Process.Pid, stale, link)
	}
	if !sleeping(kept.Process.Pid) {
		t.Errorf("process %d of the held directory %s was ended", kept.Process.Pid, held)
	}
	if !sleeping(namesake.Process.Pid) {
		t.Errorf("process %d, whose TMPDIR %s has the swept directory's name in another place, was "+
			"ended", namesake.Process.Pid, elsewhere)
	}
}

// staleRun makes in the runs directory (parent) the directory of a run
// whose supervisor was killed, stale, removed at the test's end, and
// finds sleep(1) to leave running there; it skips the test where there
// is none.
func staleRun(t *testing.T) (parent, stale, sleep string) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep(1) to leave running:", err)
	}
	if parent, err = runsDir(); err != nil {
		t.Fatal(err)
	}
	if stale, err = os.MkdirTemp(parent, tempPrefix); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stale) })
	return parent, stale, sleep
}

// liveRun makes a run's directory in parent whose lock is held until the
// test ends, as a live supervisor holds its run's: the sweep keeps it.
func liveRun(t *testing.T, parent string) string {
	t.Helper()
	held, unlock, err := makeTempDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unlock(); os.RemoveAll(held) })
	return held
}

// leaveSleeping starts sleep in a session of its own with TMPDIR tmp, as
// a killed run's worker may leave a process behind, tmp's times set a
// minute back (past staleAfter); waited is closed once it is reaped, and
// the test's end kills it.
func leaveSleeping(t *testing.T, sleep, tmp string) (cmd *exec.Cmd, waited <-chan struct{}) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	os.Chtimes(tmp, old, old)
	cmd = exec.Command(sleep, "3600")
	cmd.Env = []string{"TMPDIR=" + tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	return cmd, done
}

// TestPoolCloseWaitsForItsSweep: a pool closed at once ended its
// program in the middle of the start's sweep, and what a killed run
// left stayed until a later run or pool of the same user; Close waits
// for the sweep (at most resultGrace). The sweep is held at its start
// for a moment (sweepBegins), so that it is under way as Close is
// called.
func TestPoolCloseWaitsForItsSweep(t *testing.T) {
	_, stale, sleep := staleRun(t)
	_, waited := leaveSleeping(t, sleep, stale)
	was := sweepBegins
	t.Cleanup(func() { sweepBegins = was })
	sweepBegins = func() { time.Sleep(resultGrace / 4) } // under way as Close is called

	dir := t.TempDir()
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io"), Workers: 1,
		Confine: core.ModeOff, Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale directory %s once the pool closed: %v, want it swept", stale, err)
	}
	select { // ended by the sweep: reaped here once it is
	case <-waited:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Errorf("the process left with the stale directory is alive after the pool closed")
	}
}

// TestSweepEndsALeftoverStartedMeanwhile: a process a killed run's
// worker left can start another between the sweep's listing of the
// processes and its signals (a shell's loop, a daemon's helper); the new
// one, not in the listing, is found by the next round and ended with the
// rest. It is started here at that moment, through the listing's hook.
// The control: a process whose TMPDIR is a directory whose lock is held
// (a live run's) is kept through every round.
func TestSweepEndsALeftoverStartedMeanwhile(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep(1) to leave running:", err)
	}
	parent := t.TempDir()
	stale, err := os.MkdirTemp(parent, tempPrefix)
	if err != nil {
		t.Fatal(err)
	}
	held := liveRun(t, parent)
	old := time.Now().Add(-time.Minute)
	for _, d := range []string{stale, held} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	leave := func(tmp string) (*exec.Cmd, chan struct{}) {
		cmd := exec.Command(sleep, "3600")
		cmd.Env = []string{"TMPDIR=" + tmp}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waited := make(chan struct{})
		go func() { cmd.Wait(); close(waited) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-waited })
		// Its environment is its own once it is the sleep.
		for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); !sleeping(cmd.Process.Pid); {
			if time.Now().After(deadline) {
				t.Fatalf("process %d is not a sleep: the test proves nothing", cmd.Process.Pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return cmd, waited
	}
	first, firstGone := leave(stale)
	kept, _ := leave(held)
	var late *exec.Cmd
	var lateGone chan struct{}
	rounds := 0
	listed = func() {
		if rounds++; rounds == 1 {
			late, lateGone = leave(stale)
		}
	}
	t.Cleanup(func() { listed = func() {} })

	if removed := sweepTempDirs(parent, time.Now()); !slices.Equal(removed, []string{stale}) {
		t.Fatalf("the sweep removed %q, want the stale directory %s alone", removed, stale)
	}
	if late == nil {
		t.Fatal("the sweep listed no processes: the test proves nothing")
	}
	for _, c := range []struct {
		what   string
		pid    int
		waited chan struct{}
	}{{"listed", first.Process.Pid, firstGone}, {"started after the listing", late.Process.Pid,
		lateGone}} {
		select {
		case <-c.waited:
		case <-time.After(testkit.Bound(5 * time.Second)): // sent SIGKILL before the sweep returned
			t.Errorf("process %d of the swept directory, %s, is alive after the sweep (%d rounds)",
				c.pid, c.what, rounds)
		}
	}
	if !sleeping(kept.Process.Pid) {
		t.Errorf("process %d of the held directory %s was ended", kept.Process.Pid, held)
	}
}

// TestCommandLineWaitsForItsSweep: a command-line run sweeps what killed
// runs left beside its own start, and waits for that sweep before it
// exits (for at most resultGrace more): a run whose program ended first
// exited in the middle of it, and what the sweep had not yet ended or
// removed stayed until a later run. The killed run's directory here holds
// many files, so that its removal outlasts a program that ends at once:
// once the command has exited, the directory is gone. A command that took
// resultGrace or more proves nothing (the sweep may have been given up
// by design), and the test says so.
func TestCommandLineWaitsForItsSweep(t *testing.T) {
	bin, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cache, receipts := filepath.Join(dir, "cache"), filepath.Join(dir, "receipts")
	runs := filepath.Join(cache, filepath.FromSlash(runsDirName))
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, receipt.DirEnv+"="+receipts)
	quick := filepath.Join(dir, "quick.vel")
	if err := os.WriteFile(quick, []byte("x = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func() time.Duration {
		t.Helper()
		cmd := exec.Command(bin, quick)
		cmd.Env = env
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the run: %v: %s", err, out)
		}
		return time.Since(t0)
	}
	run() // makes the runs directory
	stale, err := os.MkdirTemp(runs, tempPrefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stale) })
	const files = 15000
	for i := range files {
		if err := os.WriteFile(filepath.Join(stale, strconv.Itoa(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	took := run()
	_, err = os.Lstat(stale)
	switch {
	case os.IsNotExist(err):
		t.Logf("the command exited after %v, the directory of %d files swept", took, files)
	case took >= resultGrace:
		t.Skipf("the run took %v, past the %v it waits for its sweep: on a machine this loaded "+
			"the sweep may be given up by design, and the test proves nothing", took, resultGrace)
	default:
		left, _ := os.ReadDir(stale)
		t.Errorf("the command exited after %v with the killed run's directory %s there (%v), "+
			"%d of its %d files left: it did not wait for its sweep", took, stale, err, len(left),
			files)
	}
}
