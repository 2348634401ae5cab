package run

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/phase"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// Run is one run as the operator asked for it.
type Run struct {
	Program     string            // path of the .vel file; a pipe or other non-regular file is read once
	Args        []string          // the program's arguments, after --
	Budget      budget.Budget     // parsed --allow
	Cwd         string            // absolute
	Confine     string            // ConfineDefault, ConfineStrict or ConfineOff
	Require     confine.Level     // --require-confinement, "" for none
	Faults      []receipt.FaultOp // SABLINE_FAULT_INJECT, parsed
	Timeout     time.Duration     // 0 for none
	MaxMemoryMB int               // 0 for none
	Guarded     []string          // Sabline's own locations no grant reaches, beside the receipts: a server's token
	// Lend are credential locations the operator lends the run: a grant
	// that names one reaches it (--lend-credential).
	Lend []string
	// Receipts is the directory of the run's receipt. When it is set, the
	// receipt is reserved there before the worker starts (nothing runs if
	// that fails) and finished when the run ends; see Receipt.Stored.
	// When it is "", the caller writes the receipt, if any.
	Receipts string
	// Tool is the host's end of the tool channel, a descriptor that can be
	// both read and written (one end of a socket pair, say): tool.call
	// writes its request there and reads the answer from it. nil: the run
	// has no tool channel, and tool.call fails with E313.
	Tool   *os.File
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Source, when set, is the program's text, and Program only names it:
	// the worker compiles these bytes, with its loads resolved beneath
	// Program's directory.
	Source []byte
	// Signals makes the supervisor take SIGINT, SIGTERM and SIGHUP while
	// the run lasts, stopping the worker with them (E309), as the command
	// line does. A library caller leaves its own signals alone.
	Signals bool
}

// The bounds the supervisor holds a worker to. The worker runs a program
// that may hold raw system calls, so nothing it hands back is trusted:
// past a bound the run fails (E310, with a receipt that says which bound),
// and the supervisor's own memory, time and disk stay bounded.
const (
	// MaxResultBytes is the most the supervisor reads from the result
	// pipe; a worker that writes more is stopped.
	MaxResultBytes = 1 << 20
	// MaxCrashReportBytes is the most of the worker's crash report the
	// supervisor reads and keeps beside the receipt.
	MaxCrashReportBytes = 64 << 10
	// MaxTempDirBytes and MaxTempDirEntries bound the run's private
	// temporary directory (apparent sizes, so a sparse file counts in
	// full); a worker whose directory passes either is stopped (E330).
	MaxTempDirBytes   = 512 << 20
	MaxTempDirEntries = 10000
	// resultGrace is how long the supervisor waits, after the worker has
	// exited, for the result pipe to close: a descendant that still holds
	// the pipe cannot keep the run going.
	resultGrace = 2 * time.Second
	// stopGrace is how long a worker asked to stop at its deadline has to
	// end its program and send where it was, before it is killed.
	stopGrace = 500 * time.Millisecond
	// tempWatchEvery is how often the temporary directory is measured.
	tempWatchEvery = 100 * time.Millisecond
)

// Supervise runs r in a worker process and returns its receipt, whose
// Outcome.ExitStatus is the status the command exits with. The supervisor
// reads the program once, reserves the receipt (when r.Receipts is set)
// before the worker starts, and holds the clock: a worker that outlives
// the timeout is killed. A worker that dies, by a signal, a crash or a
// memory limit, is a receipt too, never a lost run.
func Supervise(r Run) *receipt.Receipt { return SuperviseContext(context.Background(), r) }

// SuperviseContext is Supervise, with ctx: cancelling it ends the run as
// its timeout does (E307), with its receipt.
func SuperviseContext(ctx context.Context, r Run) *receipt.Receipt {
	started := time.Now()
	abs := r.Program
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.Cwd, abs)
	}
	// The program is read once, below; its digest is taken then.
	rec := receipt.NewForSource(abs, nil, r.Budget, r.Args)
	// The one derivation of the run's OS policy: its digest goes in the
	// receipt, and the document itself to the worker, which applies it
	// as it is sent.
	derived := confine.OSPolicy(r.Budget, confine.Options{Strict: r.Confine == ConfineStrict})
	rec.Timings.Started = started.UTC()
	// The receipt's parameters (the policy's digest among them) are
	// taken while the worker's runtime starts, or by finish for a run
	// that ends before.
	takeParameters := func() {
		if rec.RunParameters.OSPolicySHA256 == "" {
			parameters(rec, r, derived)
		}
	}
	// A run the supervisor could not start is accounted for the same way:
	// its receipt is written (or finished) with the reason.
	finish := func(o receipt.Outcome) *receipt.Receipt {
		takeParameters()
		rec.Outcome = o
		rec.Timings.WallMS = ms(time.Since(started))
		if r.Receipts != "" {
			if path, err := rec.Stored(); path == "" && err == nil {
				if _, err := rec.Reserve(r.Receipts); err != nil {
					return rec
				}
			}
			rec.Finish()
			phase.Mark("receipt finished")
		}
		return rec
	}
	if err := refuseInWorker("Supervise"); err != nil {
		return finish(receipt.OutcomeOf(err))
	}
	tmp, unlock, err := newTempDir()
	if err != nil {
		return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "private temporary directory: %w", err)))
	}
	defer func() {
		os.RemoveAll(tmp)
		unlock()
	}()
	exe, err := os.Executable()
	if err != nil {
		return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "find the sabline executable to start the worker: %w", err)))
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "request pipe: %w", err)))
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "result pipe: %w", err)))
	}
	defer resR.Close()
	// The worker's standard input is a file: a reader of the caller's
	// would hold Wait until it ends, long after the worker is gone, so it
	// is copied into a pipe whose end the run lets go of.
	var stdin io.Reader = r.Stdin
	if _, isFile := r.Stdin.(*os.File); r.Stdin != nil && !isFile {
		pr, pw, err := os.Pipe()
		if err != nil {
			return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "standard input pipe: %w", err)))
		}
		defer pr.Close()
		defer pw.Close()
		go func() {
			_, _ = io.Copy(pw, r.Stdin)
			pw.Close()
		}()
		stdin = pr
	}
	cmd := &exec.Cmd{
		// A descendant that left the worker's session would keep Wait
		// waiting for the pipes it holds; the run is over without it.
		WaitDelay: resultGrace,
		Path:      exe,
		Args:      []string{os.Args[0], WorkerArg},
		Env:       append(workerEnv(os.Environ(), r.Budget.Has(budget.Env)), workerMarker+"="+rec.RunID),
		Dir:       r.Cwd,
		Stdin:     stdin,
		Stdout:    r.Stdout,
		Stderr:    r.Stderr,
	}
	var procs int
	cmd.Env, procs = oneProc(cmd.Env)
	passPipes(cmd, reqR, resW, r.Tool)
	// The supervisor's side of confinement: a session of its own and the
	// parent-death signal on Linux, the job object and the AppContainer on
	// Windows. What it could not do, the worker's own check of itself
	// leaves out of the run's layers.
	var pol confine.Policy // the zero Policy asks nothing (--no-confine)
	if r.Confine != ConfineOff {
		pol = derived
	}
	worker, _ := confine.PrepareWorker(cmd, pol, confine.WorkerOptions{MaxMemoryMB: r.MaxMemoryMB, TempDir: tmp, RunID: rec.RunID})
	defer worker.Close()
	// The worker starts first: its runtime starts while the supervisor
	// takes the receipt's parameters, reserves it and reads the program.
	// It runs nothing until the request comes, and gets none when either
	// fails.
	phase.Mark("worker start")
	if err := worker.Start(); err != nil {
		return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "start the worker: %w", err)))
	}
	phase.Mark("worker started")
	_ = worker.AfterStart(cmd.Process.Pid)
	reqR.Close()
	resW.Close()
	takeParameters()
	// A supervisor told to stop takes its worker, and all the worker
	// started, down with it; the worker is in a session of its own
	// and would not get a terminal's signal. One stopped before this
	// point has sent no request: its worker reads the end of the pipe
	// and exits (on Linux the parent-death signal ends it first).
	sigc := make(chan os.Signal, 1)
	if r.Signals {
		signal.Notify(sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		defer signal.Stop(sigc)
	}
	abandon := func(o receipt.Outcome) *receipt.Receipt {
		reqW.Close()
		_ = worker.Kill()
		_ = cmd.Wait()
		return finish(o)
	}
	sabline := append([]string(nil), r.Guarded...)
	if r.Receipts != "" {
		made, err := rec.Reserve(r.Receipts)
		if err != nil {
			// Nothing runs without a place for its receipt.
			reqW.Close()
			_ = worker.Kill()
			_ = cmd.Wait()
			rec.Outcome = receipt.OutcomeOf(err)
			return rec
		}
		sabline = append(sabline, made...)
	}
	// What no grant reaches is resolved here, while the worker's runtime
	// starts, and travels in the request: the worker's environment does
	// not carry the operator's SABLINE_CREDENTIALS.
	g := Guard(sabline, r.Lend)
	if err := Admit(g, r.Budget); err != nil {
		return abandon(receipt.OutcomeOf(err))
	}
	src, piped := r.Source, false
	if src == nil {
		src, piped, err = readProgram(abs)
	} else if len(src) > lang.MaxProgramBytes {
		err = textTooLarge(abs, len(src))
	}
	if err != nil {
		return abandon(receipt.OutcomeOf(err))
	}
	sum := sha256.Sum256(src)
	rec.Program.SHA256 = hex.EncodeToString(sum[:])
	req := request{
		Program: abs, SHA256: rec.Program.SHA256, Args: r.Args, Budget: r.Budget, Cwd: r.Cwd, Guard: g,
		Confine: r.Confine, Require: r.Require, Faults: r.Faults, MaxMemoryMB: r.MaxMemoryMB, TempDir: tmp, Procs: procs,
	}
	if r.Confine != ConfineOff {
		req.Policy, req.PolicySHA256 = &derived, rec.RunParameters.OSPolicySHA256
	}
	if r.Source != nil {
		req.Source = src
	}
	if piped {
		// A pipe has no directory and cannot be read twice: the worker
		// compiles the bytes read here, from a file of the run's own, and
		// its loads are resolved in that directory, which holds no other
		// program file.
		req.Program, req.Piped = filepath.Join(tmp, pipedProgram), true
		if err := os.WriteFile(req.Program, src, 0o600); err != nil {
			return abandon(receipt.OutcomeOf(codes.Errorf(codes.E310, "hand the program to the worker: %w", err)))
		}
	}

	go func() {
		_ = json.NewEncoder(reqW).Encode(req) // a worker that died early is seen by Wait
		reqW.Close()
		phase.Mark("request sent")
		// Leftovers of earlier runs are swept once the request is on
		// its way, off the path to the worker's first statement.
		sweepRuns()
	}()
	// The worker's breaches of a bound: the first one ends the run.
	var breachOnce sync.Once
	breachc := make(chan error, 1)
	breach := func(err error) {
		breachOnce.Do(func() { breachc <- err })
	}
	resultc := make(chan []byte, 1)
	go func() {
		b, over := bounded.Read(resR, MaxResultBytes)
		if over {
			breach(codes.Errorf(codes.E310, "the worker wrote more than %d bytes on its result pipe: the run was stopped", MaxResultBytes))
		}
		resultc <- b
	}()
	waitc := make(chan error, 1)
	go func() { waitc <- cmd.Wait() }()
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go watchTempDir(tmp, stopWatch, breach)

	var timeout <-chan time.Time
	if r.Timeout > 0 {
		timer := time.NewTimer(r.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	timedOut, cancelled := false, false
	var stopped os.Signal
	var breached error
	select {
	case <-waitc:
		phase.Mark("worker exited")
		// The run is over: anything the worker left running in its
		// session (under --no-confine, a program may start processes)
		// goes with it, and with it any hold on the result pipe.
		_ = worker.Kill()
	case <-timeout:
		timedOut = true
	case <-ctx.Done():
		cancelled = true
	case stopped = <-sigc:
		_ = worker.Kill()
		<-waitc
	case breached = <-breachc:
		_ = worker.Kill()
		<-waitc
	}
	if timedOut || cancelled {
		// Asked to stop, the program ends at its next step and says
		// where it was; one that does not within stopGrace is killed.
		ended := false
		if askToStop(cmd.Process) {
			select {
			case <-waitc:
				ended = true
			case <-time.After(stopGrace):
			}
		}
		_ = worker.Kill()
		if !ended {
			<-waitc
		}
	}
	var raw []byte
	select {
	case raw = <-resultc:
	case <-time.After(resultGrace):
		// A descendant of the worker holds the result pipe open.
		resR.Close()
		raw = <-resultc
	}
	if breached == nil {
		select {
		case breached = <-breachc:
		default:
		}
	}
	res, final, bad := readResults(raw)
	takeWorker(rec, &res, piped)
	// The receipt never records a limit that was not held: the worker
	// says which one its address space got.
	rec.RunParameters.MaxMemoryMB = res.MemoryLimitHeld
	var report string
	if r.Receipts != "" {
		report = rec.KeepCrashReport(r.Receipts, readCrashReport(tmp))
	}
	switch {
	case timedOut || cancelled:
		o := receipt.OutcomeOf(codes.Errorf(codes.E307, "the run took longer than its timeout %s and was stopped", r.Timeout))
		if cancelled {
			o = receipt.OutcomeOf(codes.Errorf(codes.E307, "the run was cancelled and stopped: %v", context.Cause(ctx)))
		}
		if final && res.Outcome.Code == codes.E307 { // where the program was when it stopped
			o.Position, o.Stack = res.Outcome.Position, res.Outcome.Stack
		}
		return finish(o)
	case stopped != nil:
		o := receipt.OutcomeOf(codes.Errorf(codes.E309, "the supervisor received %v and stopped the worker", stopped))
		if n, ok := stopped.(syscall.Signal); ok {
			o.ExitStatus = codes.ExitSignaled + int(n)
		}
		return finish(o)
	case breached != nil:
		return finish(receipt.OutcomeOf(breached))
	case bad != nil:
		return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "the worker's result is not one it could have sent: %w", bad)))
	}
	if _, killed := killedBy(cmd.ProcessState); final && !killed {
		if got := cmd.ProcessState.ExitCode(); got != res.Outcome.ExitStatus {
			if report != "" {
				// It sent its result, then crashed: the crash is the run's end.
				return finish(deathOutcome(cmd.ProcessState, res.MemoryLimitHeld, tmp, report))
			}
			return finish(receipt.OutcomeOf(codes.Errorf(codes.E310, "the worker's result says exit status %d, but it exited with %d: the result is not the worker's own",
				res.Outcome.ExitStatus, got)))
		}
		return finish(res.Outcome)
	}
	return finish(deathOutcome(cmd.ProcessState, res.MemoryLimitHeld, tmp, report))
}

// programTooLarge refuses a program past lang.MaxProgramBytes.
func programTooLarge(name string) error {
	return codes.Errorf(codes.E316, "program %s is larger than %d bytes", name, lang.MaxProgramBytes)
}

// textTooLarge is the refusal of a program given as text (Source), past
// the bound: it names the text, not a file, and says what to send.
func textTooLarge(name string, n int) error {
	e := codes.Errorf(codes.E316, "the program's text (%s) is %d bytes, more than %d: nothing ran", filepath.Base(name), n, lang.MaxProgramBytes)
	e.Do = "Send a shorter program; a program is at most 16 MiB. Nothing ran."
	return e
}

// pipedProgram is the name, in the run's temporary directory, of a
// program the supervisor read from a pipe.
const pipedProgram = "program.vel"

// readProgram reads the program once, at most lang.MaxProgramBytes of it, and
// says whether it is something other than a regular file (a pipe, a
// terminal, /dev/stdin), which can be read only once.
func readProgram(path string) (src []byte, piped bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, codes.Errorf(codes.E316, "program %s: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, codes.Errorf(codes.E316, "program %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, false, codes.Errorf(codes.E316, "program %s is a directory", path)
	}
	src, over := bounded.Read(f, lang.MaxProgramBytes)
	if over {
		return nil, false, programTooLarge(path)
	}
	return src, !fi.Mode().IsRegular(), nil
}

// readResults reads the records a worker sent. The first is the worker's
// own: sent once the run is confined, before the program's first statement,
// or as the final record of a run that ended before it. A program with raw
// system calls (under ffi:ctypes or ffi:os) can write on the pipe too, so a
// later record is taken only for what the end of a run says (the outcome,
// the effects, the timings), never for the confinement, the files or the
// fault attempts; and of those, the last final record counts, since the
// worker sends its own last and then closes the pipe. Every record is
// checked (see workerResult.check); the first that fails is bad, and then
// nothing after it is taken. raw is at most MaxResultBytes (the caller
// bounds it).
func readResults(raw []byte) (res workerResult, final bool, bad error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	for first := true; ; first = false {
		var r workerResult
		if err := dec.Decode(&r); err != nil {
			if err != io.EOF {
				bad = fmt.Errorf("record %q...: %w", clip(raw[dec.InputOffset():], 40), err)
			}
			return res, final, bad
		}
		if err := r.check(); err != nil {
			return res, final, err
		}
		switch {
		case first:
			res, final = r, r.Outcome.Status != ""
		case r.Outcome.Status != "":
			res.Outcome, res.Effects, res.Timings, final = r.Outcome, r.Effects, r.Timings, true
		}
	}
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// deathOutcome says how a worker that wrote no result ended: killed by a
// signal, out of memory, or crashed, as the crash report the Go runtime
// wrote into the run's temporary directory (see crashFile) says. The
// report is read up to MaxCrashReportBytes; kept names where it was kept.
func deathOutcome(ps *os.ProcessState, memLimitMB int, tmp, kept string) receipt.Outcome {
	if sig, ok := killedBy(ps); ok {
		o := receipt.OutcomeOf(codes.Errorf(codes.E309, "the worker was killed by signal %d (%s) before it finished", sig, signalName(sig)))
		o.ExitStatus = codes.ExitSignaled + sig
		return o
	}
	crash := readCrashReport(tmp)
	first := ""
	for _, line := range strings.Split(crash, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			first = line
			break
		}
	}
	where := ""
	if kept != "" {
		where = "; the worker's crash report is in " + kept
	}
	if memLimitMB > 0 && allocatorThrew(crash) {
		return receipt.OutcomeOf(codes.Errorf(codes.E308, "the worker ran out of memory under its memory limit of %d MB: the address-space limit stopped an allocation%s", memLimitMB, where))
	}
	if first != "" {
		return receipt.OutcomeOf(codes.Errorf(codes.E310, "the worker exited with status %d without a result: %q%s", ps.ExitCode(), clip([]byte(first), 200), where))
	}
	if _, err := os.Lstat(filepath.Join(tmp, crashFile)); err != nil {
		// It never made its crash file: it never ran as a worker.
		e := codes.Errorf(codes.E310, "the worker exited with status %d before it began: the program it was started from did not run it as a worker; a program that embeds Sabline must call %s at the top of main", ps.ExitCode(), handOverCall)
		return receipt.OutcomeOf(e)
	}
	return receipt.OutcomeOf(codes.Errorf(codes.E310, "the worker exited with status %d without a result%s", ps.ExitCode(), where))
}

// readCrashReport reads at most MaxCrashReportBytes of the crash report in
// tmp: a regular file only, never through a link the worker put there.
func readCrashReport(tmp string) string {
	f, err := openRegular(filepath.Join(tmp, crashFile))
	if err != nil {
		return "" // none when the worker died before it could make one
	}
	defer f.Close()
	b, _ := bounded.Read(f, MaxCrashReportBytes)
	return string(b)
}

// openRegular opens path for reading only if it is a regular file and not
// a link.
func openRegular(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if got, err := f.Stat(); err != nil || !os.SameFile(fi, got) {
		f.Close()
		return nil, fmt.Errorf("%s changed while it was opened", path)
	}
	return f, nil
}

// allocatorThrew reports whether a Go crash report is the runtime giving
// up inside its allocator: what an allocation refused by the address-space
// limit looks like.
func allocatorThrew(crash string) bool {
	if strings.Contains(crash, "fatal error: out of memory") || strings.Contains(crash, "fatal error: runtime: out of memory") {
		return true
	}
	before, _, ok := strings.Cut(crash, "runtime.throw(")
	if !ok {
		return false
	}
	_, stack, _ := strings.Cut(crash[len(before):], "\n")
	frames := strings.SplitN(stack, "\n\n", 2)[0] // the throwing goroutine's frames
	return strings.Contains(frames, "runtime.mallocgc") || strings.Contains(frames, "runtime.(*mheap)") ||
		strings.Contains(frames, "runtime.(*mcache)")
}

// watchTempDir stops the run when its temporary directory passes
// MaxTempDirBytes or MaxTempDirEntries. The walk itself stops at the entry
// bound, so a directory of a million files costs the supervisor no more
// than one of MaxTempDirEntries.
func watchTempDir(dir string, stop <-chan struct{}, breach func(error)) {
	tick := time.NewTicker(tempWatchEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if err := tempDirWithin(dir); err != nil {
			breach(err)
			return
		}
	}
}

var errStopWalk = errors.New("stop")

// tempDirWithin measures dir and says when it is past a bound.
func tempDirWithin(dir string) error {
	var n, size int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone since it was listed
		}
		if n++; n > MaxTempDirEntries {
			return errStopWalk
		}
		if fi, err := d.Info(); err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
		if size > MaxTempDirBytes {
			return errStopWalk
		}
		return nil
	})
	switch {
	case err == nil:
		return nil
	case n > MaxTempDirEntries:
		return codes.Errorf(codes.E330, "more than %d entries were made in the run's private temporary directory: the run was stopped", MaxTempDirEntries)
	}
	return codes.Errorf(codes.E330, "the run's private temporary directory grew past %d MB: the run was stopped", MaxTempDirBytes>>20)
}

// tempPrefix begins the name of every run's private temporary directory.
// Directories an older sabline made (sabline-run-*) hold no lock, and are
// never swept.
const tempPrefix = "sabline-worker-"

// staleAfter is how old a temporary directory must be before a later run
// may sweep it: a supervisor locks its directory just after making it.
const staleAfter = 2 * time.Second

// maxSweep is the most leftover directories one run removes.
const maxSweep = 16

// makeTempDir makes the run's private temporary directory in parent and
// holds a lock on it for the life of the supervisor (see lockDir): a
// later run removes the directory only once that lock is free, that is
// once this supervisor is gone, however it ended.
func makeTempDir(parent string) (dir string, unlock func(), err error) {
	dir, err = os.MkdirTemp(parent, tempPrefix)
	if err != nil {
		return "", nil, err
	}
	unlock, err = lockDir(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return dir, unlock, nil
}

// sweepTempDirs removes the private temporary directories that runs whose
// supervisor was killed outright left in parent: directories (never links)
// named like one, older than staleAfter, whose lock no live supervisor
// holds. It removes at most maxSweep of them.
func sweepTempDirs(parent string, now time.Time) (removed []string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if len(removed) == maxSweep {
			break
		}
		if !strings.HasPrefix(e.Name(), tempPrefix) || e.Type()&fs.ModeType != fs.ModeDir {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if fi, err := e.Info(); err != nil || now.Sub(fi.ModTime()) < staleAfter {
			continue
		}
		unlock, ok := tryLockDir(dir)
		if !ok {
			continue // its supervisor is alive
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
		unlock()
	}
	return removed
}

// workerEnvKeep names the only variables of the operator's environment a
// worker without the env grant starts with: what the Go runtime reads to
// tune itself, PATH for the host modules that start a program by name, TZ
// for the clock, and where the TLS roots are for net. Everything else
// (tokens, credentials, proxies) stays with the supervisor. The worker
// sets TMPDIR itself.
var workerEnvKeep = []string{"PATH", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GOTRACEBACK", "GOCOVERDIR"}

// workerEnv derives the worker's environment from the operator's: with the
// env grant (a plain item: it covers every variable), the whole of it;
// without, only workerEnvKeep. Either way never the fault-injection
// variable, which reaches the worker only through the request.
func workerEnv(operator []string, envGranted bool) []string {
	env := []string{}
	for _, kv := range operator {
		name, _, _ := strings.Cut(kv, "=")
		if name == FaultEnv {
			continue
		}
		// A knock-out build is a test build: its one-layer switch
		// reaches the worker, where confine reads it.
		if envGranted || contains(workerEnvKeep, name) || (lang.Knockout && name == confine.LayersOnlyEnv) || (phase.Env != "" && name == phase.Env) {
			env = append(env, kv)
		}
	}
	return env
}

// oneProc has a worker start with GOMAXPROCS=1 unless env sets it: its
// runtime then starts fewer threads, and confinement, which reaches every
// thread, has fewer to reach. It returns the environment and the count
// the worker takes once confined (the supervisor's own), or 0 when env
// set one, which stays.
func oneProc(env []string) ([]string, int) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return env, 0
		}
	}
	return append(env, "GOMAXPROCS=1"), goruntime.GOMAXPROCS(0)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parameters sets how the run was asked for in its receipt.
func parameters(rec *receipt.Receipt, r Run, derived confine.Policy) {
	rec.RunParameters.Asked(r.Confine, r.Require, r.Timeout, derived.SHA256())
	rec.RunParameters.CredentialsLent = r.Lend
}

// takeWorker takes what the worker said of the run. For a program read from
// a pipe, the worker compiled a copy: the receipt names the operator's path.
func takeWorker(rec *receipt.Receipt, res *workerResult, piped bool) {
	if res.Confinement.Level != "" { // "" when the worker died before it was confined
		rec.RunParameters.Confinement = res.Confinement.Level
		rec.RunParameters.ConfinementReason = res.Confinement.Reason
		rec.RunParameters.ConfinementLayers = res.Confinement.Layers
	}
	if len(res.Files) > 0 {
		rec.Program.Files = res.Files
		if piped {
			rec.Program.Files[0].Path = rec.Program.Path
		}
		rec.Program.SHA256 = res.Files[0].SHA256
	}
	if res.Effects != nil {
		rec.Effects = res.Effects
	}
	rec.Faults = res.Faults
	rec.Timings.Worker = res.Timings
}
