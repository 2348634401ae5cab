package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// TestRunStoppedBySignal: a command-line run whose supervisor gets a
// stopping signal (SIGTERM, SIGINT, SIGHUP, SIGQUIT: a kill, a terminal's
// Ctrl-C, its hangup, its Ctrl-\) stops its worker, exits 128+N and
// finishes the receipt saying so (E309); the worker is gone, seen in
// /proc. SIGQUIT was left to the Go runtime: its goroutines printed, exit
// 2 (a command line that ran nothing), the receipt unfinished (E327).
// The control: the same program with no signal runs to its end, ok.
func TestRunStoppedBySignal(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "spin.vel")
	src := "start = clock.now()\nwhile clock.now() - start < LIMIT:\n    pass\nprint(\"done\")\n"
	if err := os.WriteFile(prog, []byte(strings.Replace(src, "LIMIT", "int(ARGS[0])", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(seconds string, stop syscall.Signal) (string, int) {
		rc := t.TempDir()
		cmd := exec.Command(bin, "--receipts", rc, "--allow", "io,clock", prog, "--", seconds)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		worker := 0
		if stop != 0 {
			worker = signalOnceWorking(t, cmd, stop)
		}
		if !endedWithin(cmd, 20*time.Second) {
			t.Fatalf("sabline stopped by %v did not end: killed", stop)
		}
		if worker != 0 {
			if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(worker))); err == nil {
				t.Errorf("%v: worker %d still exists after its supervisor stopped", stop, worker)
			}
		}
		runs, err := receipt.List(rc)
		if err != nil || len(runs) != 1 {
			t.Fatalf("receipts %d (%v), want one", len(runs), err)
		}
		return out.String() + "|" + runs[0].Outcome.Status + "|" + string(runs[0].Outcome.Code), cmd.ProcessState.ExitCode()
	}
	got, code := run("0", 0)
	if code != 0 || !strings.Contains(got, "done") || !strings.HasSuffix(got, "|ok|") {
		t.Fatalf("the control run: exit %d, %q; want it to end ok", code, got)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		got, code := run("60", sig)
		want := "E309: the supervisor received " + sig.String()
		if code != 128+int(sig) || !strings.Contains(got, want) || !strings.HasSuffix(got, "|killed|E309") {
			t.Errorf("the run stopped by %v: exit %d, %q; want %d, %q in the message and E309 in the receipt",
				sig, code, got, 128+int(sig), want)
		}
	}
}

// TestRunStopsWithItsTerminal: a terminal's stops (Ctrl-Z's SIGTSTP, a
// background job's SIGTTIN and SIGTTOU) reach the supervisor's process
// group alone; the supervisor stops its worker, in a session of its own,
// with it. Seen in /proc: the worker stopped ('T') while the supervisor
// is, and running again once the supervisor is continued (the control:
// the same worker spinning); then SIGINT ends the run as ever (130,
// E309). A run stopped past its timeout ends at its timeout once
// continued (124, E307): the time stopped counts.
func TestRunStopsWithItsTerminal(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("a terminal's stops stop the supervisor alone on linux/%s", runtime.GOARCH)
	}
	bin := sablineBin(t)
	prog := filepath.Join(t.TempDir(), "spin.vel")
	testkit.WriteFile(t, prog, "while True:\n    pass\n")
	// start starts a run in a process group of its own, which the test,
	// as a shell would, continues (attr nil), or as attr says.
	start := func(t *testing.T, attr *syscall.SysProcAttr, args ...string) (*exec.Cmd,
		*strings.Builder, string) {
		rc := t.TempDir()
		cmd := exec.Command(bin, append([]string{"--receipts", rc, "--allow", "io", prog}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if attr != nil {
			cmd.SysProcAttr = attr
		}
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() }) // once ended, the call fails
		return cmd, out, rc
	}
	ended := func(t *testing.T, cmd *exec.Cmd, rc string) (int, string) {
		if !endedWithin(cmd, 20*time.Second) {
			t.Fatalf("sabline did not end: killed")
		}
		runs, err := receipt.List(rc)
		if err != nil || len(runs) != 1 {
			t.Fatalf("receipts %d (%v), want one", len(runs), err)
		}
		return cmd.ProcessState.ExitCode(), string(runs[0].Outcome.Code)
	}
	stopped := func(s byte) bool { return s == 'T' }
	for _, sig := range []syscall.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, out, rc := start(t, nil)
			worker := signalOnceSpinning(t, cmd, sig)
			waitState(t, cmd.Process.Pid, "the supervisor", "stopped", stopped)
			waitState(t, worker, "its worker", "stopped", stopped)
			if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			waitState(t, worker, "its worker", "continued", func(s byte) bool { return s != 'T' })
			waitSpinning(t, worker)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if code, c := ended(t, cmd, rc); code != 130 || c != "E309" {
				t.Errorf("exit %d, receipt %s, %q; want 130 and E309", code, c, out)
			}
		})
	}
	t.Run("orphaned", func(t *testing.T) {
		// A session of its own: no process in it has a parent in another
		// group of the session, so the kernel stops nothing of it on a
		// terminal's stop, and nor does the supervisor: SIGINT, which a
		// stopped process would leave pending, ends the run.
		cmd, out, rc := start(t, &syscall.SysProcAttr{Setsid: true})
		signalOnceWorking(t, cmd, syscall.SIGTSTP)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if code, c := ended(t, cmd, rc); code != 130 || c != "E309" {
			t.Errorf("exit %d, receipt %s, %q; want 130 and E309", code, c, out)
		}
	})
	t.Run("past its timeout", func(t *testing.T) {
		const timeout = time.Second
		began := time.Now()
		cmd, out, rc := start(t, nil, "--timeout", timeout.String())
		signalOnceWorking(t, cmd, syscall.SIGTSTP)
		waitState(t, cmd.Process.Pid, "the supervisor", "stopped", stopped)
		time.Sleep(time.Until(began.Add(timeout))) // the timeout passes while it is stopped
		if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		if code, c := ended(t, cmd, rc); code != 124 || c != "E307" {
			t.Errorf("exit %d, receipt %s, %q; want 124 and E307", code, c, out)
		}
	})
}

// waitSpinning waits until the process pid, spinning, has used another
// clock tick of processor time, for at most testkit.Bound(10s).
func waitSpinning(t *testing.T, pid int) {
	t.Helper()
	was, err := proc.CPUTicks(pid)
	now := was
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for ; err == nil && now == was && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		now, err = proc.CPUTicks(pid)
	}
	if err != nil || now == was {
		t.Fatalf("process %d used no processor time: %d ticks, then %d (%v)", pid, was, now, err)
	}
}

// waitState waits until the state of the process pid (proc.State) is one
// that ok accepts, for at most testkit.Bound(10s).
func waitState(t *testing.T, pid int, who, want string, ok func(byte) bool) {
	t.Helper()
	var s byte
	var err error
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for ; time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if s, err = proc.State(pid); err == nil && ok(s) {
			return
		}
	}
	t.Fatalf("%s (%d) is not %s: state %q (%v)", who, pid, want, s, err)
}

// TestRunProgramANamedPipe: a program path that is a named pipe no one
// writes (planted in a directory of programs, say) holds the
// supervisor's open of it; the run is still held to its timeout (exit
// 124, E307) and stopped by the operator's SIGINT (exit 130, E309), each
// with its receipt. The control: the same pipe, written by a writer that
// comes later, runs the program it was given.
func TestRunProgramANamedPipe(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "prog.vel")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	run := func(feed, stop bool, flags ...string) (string, int) {
		rc := t.TempDir()
		args := append([]string{"--receipts", rc, "--allow", "io", fifo}, flags...)
		cmd := exec.Command(bin, args...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if feed {
			// Opening the pipe for writing waits for the supervisor's
			// open for reading.
			if err := os.WriteFile(fifo, []byte("print(\"fed\")\n"), 0); err != nil {
				t.Fatal(err)
			}
		}
		if stop {
			signalOnceWorking(t, cmd, syscall.SIGINT)
		}
		if !endedWithin(cmd, 10*time.Second) {
			t.Errorf("sabline %s did not end: killed", strings.Join(args, " "))
			return out.String(), -1
		}
		runs, err := receipt.List(rc)
		if err != nil || len(runs) != 1 {
			t.Fatalf("receipts %d (%v), want one", len(runs), err)
		}
		return out.String() + "|" + runs[0].Outcome.Status + "|" + string(runs[0].Outcome.Code),
			cmd.ProcessState.ExitCode()
	}
	if got, code := run(true, false); code != 0 || !strings.HasPrefix(got, "fed\n") || !strings.HasSuffix(got, "|ok|") {
		t.Fatalf("the control run: exit %d, %q; want it to run the program written to the pipe", code, got)
	}
	if got, code := run(false, false, "--timeout", "300ms"); code != 124 || !strings.Contains(got, "a named pipe waits for a writer") || !strings.HasSuffix(got, "|timeout|E307") {
		t.Errorf("the run with a timeout: exit %d, %q; want 124, E307 in the message and the receipt", code, got)
	}
	if got, code := run(false, true); code != 128+int(syscall.SIGINT) || !strings.Contains(got, "E309: the supervisor received interrupt") || !strings.HasSuffix(got, "|killed|E309") {
		t.Errorf("the run stopped by SIGINT: exit %d, %q; want 130, E309 in the message and the receipt", code, got)
	}
}

// TestEvalStoppedBySignal: sabline eval given SIGTERM while a program
// runs stops that run (E309, its receipt) and the grading: it prints the
// grades so far, says how many programs were not run, and exits 128+15,
// with no program after it run (one receipt), rather than going on to
// the next program, each to its timeout. The control: the same suite's programs given no signal
// run, each with its receipt.
func TestEvalStoppedBySignal(t *testing.T) {
	bin := sablineBin(t)
	eval := func(src string, stop bool) (string, int, []receipt.StoredReceipt) {
		suite, rc := t.TempDir(), t.TempDir()
		for _, name := range []string{"a", "b", "c"} {
			testkit.WriteFile(t, filepath.Join(suite, name+".vel"), src)
			testkit.WriteFile(t, filepath.Join(suite, name+".out"), "done\n")
		}
		cmd, out := startEval(t, bin, suite, rc)
		if stop {
			signalOnceWorking(t, cmd, syscall.SIGTERM)
		}
		return evalEnded(t, cmd, out, rc)
	}
	if out, code, runs := eval("print(\"done\")\n", false); code != 0 || len(runs) != 3 {
		t.Fatalf("the control: exit %d, %d receipts, %q; want 0 and 3", code, len(runs), out)
	}
	out, code, runs := eval("while True:\n    pass\n", true)
	if code != 128+int(syscall.SIGTERM) || len(runs) != 1 || runs[0].Outcome.Code != "E309" ||
		!strings.Contains(out, "ERROR a.vel") ||
		!strings.Contains(out, "stopped by terminated: 2 .vel files") {
		t.Errorf("the stopped eval: exit %d, %d receipts, %q; want 143, one receipt (E309), the grade "+
			"of a.vel and the 2 files not run", code, len(runs), out)
	}
}

// TestEvalStoppedInItsLastProgram: a Ctrl-C while eval runs the last
// program it grades (alone, or before a library it does not grade) stops
// the grading as one in any other run does: the grade of the run it
// stopped (E309), the line saying so, exit 130. It exited 1, as a suite
// with a program in error, with no word of the signal, because the
// signal was looked for only before the next graded program. The
// control: the same suites given no signal, their program printing what
// is expected, pass (exit 0).
func TestEvalStoppedInItsLastProgram(t *testing.T) {
	bin := sablineBin(t)
	eval := func(src string, library, stop bool) (string, int, []receipt.StoredReceipt) {
		suite, rc := t.TempDir(), t.TempDir()
		testkit.WriteFile(t, filepath.Join(suite, "a.vel"), src)
		testkit.WriteFile(t, filepath.Join(suite, "a.out"), "done\n")
		if library {
			testkit.WriteFile(t, filepath.Join(suite, "z.vel"), "def f():\n    return 1\n")
		}
		cmd, out := startEval(t, bin, suite, rc)
		if stop {
			signalOnceWorking(t, cmd, syscall.SIGINT)
		}
		return evalEnded(t, cmd, out, rc)
	}
	for _, library := range []bool{false, true} {
		if out, code, runs := eval("print(\"done\")\n", library, false); code != 0 || len(runs) != 1 ||
			!strings.Contains(out, "PASS  a.vel") {
			t.Fatalf("the control (library %v): exit %d, %d receipts, %q; want 0, one pass", library,
				code, len(runs), out)
		}
		out, code, runs := eval("while True:\n    pass\n", library, true)
		notRun := "stopped by interrupt: 0 .vel files"
		if library {
			notRun = "stopped by interrupt: 1 .vel files"
		}
		if code != 128+int(syscall.SIGINT) || len(runs) != 1 || runs[0].Outcome.Code != "E309" ||
			!strings.Contains(out, "ERROR a.vel") || !strings.Contains(out, notRun) {
			t.Errorf("the eval stopped in its last program (library %v): exit %d, %d receipts, %q; "+
				"want 130, one receipt (E309), the grade of a.vel and %q", library, code, len(runs), out,
				notRun)
		}
	}
}

// TestEvalStoppedByCtrlBackslash: a terminal's Ctrl-\ (SIGQUIT), which
// stops a run as Ctrl-C does, stops the grading as Ctrl-C does: the run
// it comes in is E309 and no program after it runs; one that comes while
// eval grades programs it refuses (an expected output that leads out of
// the suite) leaves the grades so far printed. Eval took SIGQUIT only
// inside a run: there it failed that program (E309) and went on to the
// next, exit 1; between runs the Go runtime's default ended it with its
// goroutines printed, exit 2, and no grade. The control: the suites given
// no signal are graded whole.
func TestEvalStoppedByCtrlBackslash(t *testing.T) {
	bin := sablineBin(t)
	outside := filepath.Join(t.TempDir(), "answer.out")
	testkit.WriteFile(t, outside, "done\n")
	eval := func(refused int, stop func(cmd *exec.Cmd, rc string)) (string, int,
		[]receipt.StoredReceipt) {
		suite, rc := t.TempDir(), t.TempDir()
		limit := "0"
		if stop != nil && refused == 0 {
			limit = "1000000000000" // a.vel spins till stopped
		}
		testkit.WriteFile(t, filepath.Join(suite, "a.vel"),
			"x = 0\nwhile x < "+limit+":\n    x += 1\nprint(\"done\")\n")
		testkit.WriteFile(t, filepath.Join(suite, "a.out"), "done\n")
		for _, name := range []string{"b", "c"} {
			testkit.WriteFile(t, filepath.Join(suite, name+".vel"), "print(\"done\")\n")
			testkit.WriteFile(t, filepath.Join(suite, name+".out"), "done\n")
		}
		for i := range refused {
			name := filepath.Join(suite, "r"+strconv.Itoa(i))
			testkit.WriteFile(t, name+".vel", "print(\"done\")\n")
			if err := os.Symlink(outside, name+".out"); err != nil {
				t.Fatal(err)
			}
		}
		cmd, out := startEval(t, bin, suite, rc)
		if stop != nil {
			stop(cmd, rc)
		}
		return evalEnded(t, cmd, out, rc)
	}
	const refused = 3000
	for _, n := range []int{0, refused} {
		wantCode := 0
		if n > 0 {
			wantCode = 1
		}
		if out, code, runs := eval(n, nil); code != wantCode || len(runs) != 3+n ||
			!strings.Contains(out, "eval: 3 passed, 0 failed, "+strconv.Itoa(n)+" errors") {
			t.Fatalf("the control (%d refused): exit %d, %d receipts, %.300q; want %d, %d receipts, "+
				"3 passed", n, code, len(runs), out, wantCode, 3+n)
		}
	}
	// In a run: once a.vel's worker spins.
	out, code, runs := eval(0, func(cmd *exec.Cmd, _ string) {
		signalOnceWorking(t, cmd, syscall.SIGQUIT)
	})
	if code != 128+int(syscall.SIGQUIT) || len(runs) != 1 || runs[0].Outcome.Code != "E309" ||
		!strings.Contains(out, "ERROR a.vel") ||
		!strings.Contains(out, "stopped by quit: 2 .vel files") {
		t.Errorf("Ctrl-\\ in a run: exit %d, %d receipts, %q; want 131, one receipt (E309), the grade "+
			"of a.vel and the 2 files not run", code, len(runs), out)
	}
	// Among the refusals: once some of them have their receipts, after
	// those of a, b and c.
	out, code, runs = eval(refused, func(cmd *exec.Cmd, rc string) {
		deadline := time.Now().Add(testkit.Bound(10 * time.Second))
		for time.Now().Before(deadline) {
			if entries, _ := os.ReadDir(rc); len(entries) >= 10 {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGQUIT); err != nil {
			t.Fatal(err)
		}
	})
	if code != 128+int(syscall.SIGQUIT) || len(runs) >= 3+refused ||
		!strings.Contains(out, "PASS  c.vel") || !strings.Contains(out, "eval: 3 passed") ||
		!strings.Contains(out, "stopped by quit") || strings.Contains(out, "goroutine") {
		t.Errorf("Ctrl-\\ among the refusals: exit %d, %d receipts, %.300q; want 131, the grades "+
			"so far, no goroutines", code, len(runs), out)
	}
}

// startEval starts sabline eval of suite under --allow io, each run
// given a minute, its receipts kept in rc, and returns the command and
// what it prints on both its streams.
func startEval(t *testing.T, bin, suite, rc string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(bin, "eval", suite, "--allow", "io", "--timeout", "60s", "--receipts", rc)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// evalEnded waits, within a bound, for cmd, a sabline eval the test
// started, writing to out, and keeping its receipts in rc; it returns
// what the eval printed, its exit status and the receipts.
func evalEnded(t *testing.T, cmd *exec.Cmd, out *strings.Builder, rc string) (string, int,
	[]receipt.StoredReceipt) {
	t.Helper()
	if !endedWithin(cmd, 20*time.Second) {
		t.Fatalf("sabline eval did not end: killed; it printed %q", out.String())
	}
	runs, err := receipt.List(rc)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), cmd.ProcessState.ExitCode(), runs
}

// endedWithin waits for cmd, a process the test started, to end within
// testkit.Bound(d); where it does not, it kills it, waits, and says
// false.
func endedWithin(cmd *exec.Cmd, d time.Duration) bool {
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	select {
	case <-exited:
		return true
	case <-time.After(testkit.Bound(d)):
		_ = cmd.Process.Kill()
		<-exited
		return false
	}
}

// signalOnceWorking sends sig to cmd, a sabline command the test started,
// once a worker of its runs (proc.Worker), and returns the worker's pid.
func signalOnceWorking(t *testing.T, cmd *exec.Cmd, sig os.Signal) int {
	t.Helper()
	worker := workerOf(t, cmd)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return worker
}

// workerOf waits for a worker of cmd, a sabline command the test started,
// to run (proc.Worker), for at most testkit.Bound(10s), and returns its
// pid.
func workerOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	worker := 0
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); worker == 0 &&
		time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		worker, _ = proc.Worker(cmd.Process.Pid)
	}
	if worker == 0 {
		t.Fatal("no worker appeared")
	}
	return worker
}

// programTicks is processor time (in clock ticks of 10 ms) past what a
// worker's start and confinement take (some tens of ms): a spinning
// worker that has used it runs its program.
const programTicks = 30

// signalOnceSpinning sends sig to cmd, a sabline command the test
// started running a program that spins, once its worker has used
// programTicks of processor time, and returns the worker's pid. A worker
// found as it starts has not been sent its program yet: it waits, and a
// terminal's stop then stops its supervisor alone, which sends nothing
// while stopped.
func signalOnceSpinning(t *testing.T, cmd *exec.Cmd, sig os.Signal) int {
	t.Helper()
	worker := workerOf(t, cmd)
	var ticks int64
	var err error
	deadline := time.Now().Add(testkit.Bound(20 * time.Second))
	for ; err == nil && ticks < programTicks && time.Now().Before(deadline); time.Sleep(
		5 * time.Millisecond) {
		ticks, err = proc.CPUTicks(worker)
	}
	if ticks < programTicks {
		t.Fatalf("worker %d used %d clock ticks (%v): want %d, its program spinning", worker, ticks,
			err, programTicks)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return worker
}

// TestStartedIgnoringGoesOn: a command started ignoring SIGHUP and
// SIGINT (by nohup, or as a script's background job) goes on through the
// hangup and the Ctrl-C it was started to outlive: `sabline eval` of two
// programs, each sent both while its worker runs, ends 0 with two
// receipts, ok: eval, which takes the signals between its programs, and
// each program's supervisor leave them ignored. The control: the
// same eval started not ignoring them is stopped by the first SIGHUP
// (129, E309).
func TestStartedIgnoringGoesOn(t *testing.T) {
	bin := sablineBin(t)
	suite := t.TempDir()
	for _, name := range []string{"a", "b"} {
		testkit.WriteFile(t, filepath.Join(suite, name+".vel"),
			"start = clock.now()\nwhile clock.now() - start < 2:\n    pass\nprint(\"done\")\n")
		testkit.WriteFile(t, filepath.Join(suite, name+".out"), "done\n")
	}
	eval := func(trap string) (string, int, []receipt.StoredReceipt) {
		rc := t.TempDir()
		cmd := exec.Command("/bin/sh", "-c", trap+`exec "$@"`, "sh",
			bin, "eval", suite, "--allow", "io,clock", "--timeout", "60s", "--receipts", rc)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for seen := 0; ; {
			if seen = nextWorker(cmd.Process.Pid, seen); seen == 0 {
				break // the eval ended, or its next worker did not come
			}
			_ = cmd.Process.Signal(syscall.SIGHUP)
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
		return evalEnded(t, cmd, &out, rc)
	}
	out, code, runs := eval("")
	if code != 128+int(syscall.SIGHUP) || len(runs) != 1 || runs[0].Outcome.Code != "E309" {
		t.Fatalf("the control, not ignoring: exit %d, %d receipts, %q; want 129 and one, E309",
			code, len(runs), out)
	}
	out, code, runs = eval("trap '' HUP INT; ")
	if code != 0 || len(runs) != 2 || runs[0].Outcome.Status != "ok" ||
		runs[1].Outcome.Status != "ok" {
		t.Errorf("started ignoring SIGHUP and SIGINT: exit %d, %d receipts, %q; want 0 and two, ok",
			code, len(runs), out)
	}
}

// nextWorker waits for a worker of supervisor other than the one whose
// pid is seen, and returns its pid; 0 once supervisor has ended, or past
// a bound.
func nextWorker(supervisor, seen int) int {
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for ; time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if w, ok := proc.Worker(supervisor); ok && w != seen {
			return w
		}
		if st, err := proc.State(supervisor); err != nil || st == 'Z' {
			return 0
		}
	}
	return 0
}
