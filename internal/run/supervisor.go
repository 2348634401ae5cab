package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/brokenpipe"
	"github.com/sabline/sabline/internal/fault"
	"github.com/sabline/sabline/internal/phase"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// Run is one run as the operator asked for it.
type Run struct {
	// path of the .vel file; a pipe or other non-regular file is read once
	Program     string
	Args        []string          // the program's arguments, after --
	Budget      budget.Budget     // parsed --allow
	Cwd         string            // absolute
	Confine     core.Mode         // core.ModeDefault, ModeStrict or ModeOff
	Require     core.Level        // --require-confinement; "" for this machine's (required)
	Faults      []receipt.FaultOp // SABLINE_FAULT_INJECT, parsed
	Timeout     time.Duration     // 0 for none
	MaxMemoryMB int               // 0 for none; at most MaxMemoryMB
	// Sabline's own locations no grant reaches, beside the receipts: a
	// server's token; each named as it is (a directory named r[1] is
	// guarded, not r1)
	Guarded []string
	// GuardedMatched are more locations no grant reaches, each named by a
	// pattern (path.Match) in its last component: eval's expected
	// outputs (DIR/*.out), and the other programs it grades.
	GuardedMatched []string
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
	// StdoutKept is, when above zero, the most of what Stdout takes that
	// its caller keeps (sabline.Run's Result): a run that printed more
	// has its receipt say what was kept (receipt.StdoutCut).
	StdoutKept int64
	// Source, when set, is the program's text, and Program only names it:
	// the worker compiles these bytes, with its loads resolved beneath
	// Program's directory.
	Source []byte
	// Signals makes the supervisor take SIGINT, SIGTERM, SIGHUP and
	// SIGQUIT while the run lasts, stopping the worker with them (E309,
	// exit status 128+N), as the command line does, and stop and continue
	// the worker with the supervisor on a terminal's stops (Ctrl-Z;
	// followTerminal). A library caller leaves its own signals alone.
	Signals bool
	// Durability is how the receipt file is kept before the run returns
	// (receipt.Receipt.Finish); "" is the command line's: its writeback
	// started, not waited for, and no durability recorded.
	Durability receipt.Durability
	// Undelivered fails a run whose Stdout or Stderr refused what the
	// worker wrote (E305, naming the writer's error; undeliveredOutcome),
	// as a program in the caller's own process fails at that print: the
	// library's runs. The command line leaves it unset: a run whose
	// output's reader went once the program had printed all ends as the
	// program did (sabline PROGRAM | head), and one whose output was
	// refused otherwise (a full disk: brokenpipe.ReaderGone) fails all
	// the same.
	Undelivered bool
}

// stopSignals are the operator's signals a run that takes them (Signals)
// is stopped by, with its receipt: a terminal's Ctrl-C (SIGINT) and Ctrl-\
// (SIGQUIT), its hangup, and a plain kill, less those the process was
// started ignoring (Heeded). SIGQUIT left to the Go
// runtime would print the supervisor's goroutines on the terminal and
// exit 2, the status of a command line that ran nothing, the receipt
// left unfinished.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// The bounds the supervisor holds a worker to. The worker runs a program
// that may hold raw system calls, so nothing it hands back is trusted:
// past a bound the run fails (E310, with a receipt that says which bound),
// and the supervisor's own memory, time and disk stay bounded.
const (
	// MaxCrashReportBytes is the most of the worker's crash report the
	// supervisor reads and keeps beside the receipt.
	MaxCrashReportBytes = 64 << 10
	// MaxTempDirBytes and MaxTempDirEntries bound the run's private
	// temporary directory (apparent sizes, so a sparse file counts in
	// full; the entries made in it, not the directory itself nor the
	// worker's crash file); a worker whose directory passes either is
	// stopped (E330).
	MaxTempDirBytes   = 512 << 20
	MaxTempDirEntries = 10000
	// resultGrace is how long the supervisor waits, after the worker has
	// exited, for the result pipe to close: a descendant that still holds
	// the pipe cannot keep the run going.
	resultGrace = 2 * time.Second
	// stopGrace is how long a worker asked to stop (its deadline, its
	// context) has to end its program and send where it was, before it
	// is killed. A stopped interpreter answers in well under a
	// millisecond, and the run returns then: only a builtin blocked in a
	// system call waits it out. It is long enough for a worker on a
	// loaded machine, whose answer may take tens of milliseconds to be
	// scheduled, to say where the program was.
	stopGrace = 500 * time.Millisecond
	// BoundsWatchEvery is how often the worker's temporary directory, its
	// threads and its memory are measured from outside while a step is
	// awaited (the root package's TestMemoryHeldFromOutside reads it); the
	// temporary directory no more often than its measure's cost allows
	// (measureShare).
	BoundsWatchEvery = 100 * time.Millisecond
)

// MaxMemoryMB is the largest memory limit a run or a pool may be given,
// 1 PiB: past any machine's memory, and small enough that the limit in
// bytes (twice it, for the address space) fits in 64 bits. Past it the
// limit wrapped: --max-memory-mb 17592186044416 (2^44) held the run to 0
// bytes, and every run ended E308 "over its memory limit of 0 MB".
const MaxMemoryMB = 1 << 30

// checkMemory refuses a memory limit past MaxMemoryMB (E301).
func checkMemory(mb int) error {
	if mb > MaxMemoryMB {
		return codes.Errorf(codes.E301, "a memory limit of %d MB is more than the %d MB a run "+
			"may be given", mb, MaxMemoryMB)
	}
	return nil
}

// checkNames refuses a run whose program path, working directory or
// argument is not UTF-8. The worker is handed each in a JSON string,
// which holds only UTF-8, and a byte that is not would reach it as
// U+FFFD: the worker opened another file than the one named (E316 "no
// such file or directory", of a file that was there), took its relative
// paths against another directory, and gave the program another
// argument than the caller's, and the receipt kept that other name. The
// path is E316 and the rest E301, each quoted (%q) so that the message
// keeps the bytes, as a budget item that is not UTF-8 is refused. A
// working directory holding a NUL is E301 too: the worker's start failed
// on it, E310, whose advice calls that a fault in Sabline.
func checkNames(program, cwd string, args []string) error {
	if !utf8.ValidString(program) {
		return codes.Errorf(codes.E316, "program %q: its path is not UTF-8, which the worker "+
			"cannot be handed as it is: rename it; nothing ran", program)
	}
	if !utf8.ValidString(cwd) {
		return codes.Errorf(codes.E301, "the working directory %q is not UTF-8, which the worker "+
			"cannot be handed as it is: run from a directory whose path is; nothing ran", cwd)
	}
	if strings.IndexByte(cwd, 0) >= 0 {
		return codes.Errorf(codes.E301, "the working directory %q holds a NUL byte, which no path "+
			"holds: nothing ran", cwd)
	}
	for i, a := range args {
		if !utf8.ValidString(a) {
			return codes.Errorf(codes.E301, "argument %d, %q, is not UTF-8, which the program "+
				"cannot be handed as it is: pass bytes on its standard input; nothing ran", i+1,
				codes.Clip(a, codes.MaxFrameBytes))
		}
	}
	return nil
}

// Supervise runs r in a worker process and returns its receipt, whose
// Outcome.ExitStatus is the status the command exits with. The supervisor
// reads the program once, reserves the receipt (when r.Receipts is set)
// before the worker starts, and holds the clock: a worker that outlives
// the timeout is killed. A worker that dies, by a signal, a crash or a
// memory limit, is a receipt too, never a lost run.
func Supervise(r Run) *receipt.Receipt { return SuperviseContext(context.Background(), r) }

// SuperviseContext is Supervise, with ctx: cancelling it ends the run as
// its timeout does (E307), with its receipt. The run is a worker with one
// job (see workerProc): its first record, then its program's end.
func SuperviseContext(ctx context.Context, r Run) *receipt.Receipt {
	// A supervisor told to stop takes its worker, and all the worker
	// started, down with it; the worker is in a session of its own and
	// would not get a terminal's signal. The signals are taken before the
	// worker starts: one that comes meanwhile stops the run at its first
	// wait, with its receipt. One stopped before the request is sent has
	// sent none: its worker reads the end of the pipe and exits (on Linux
	// the parent-death signal ends it first). A terminal's stops are taken
	// with them (followTerminal). They are asked for first, beside the
	// checks below, and waited for before the worker starts: signal.Notify
	// hands the runtime's signal thread one signal at a time and waits for
	// its answer each time: the four stop signals' round trips between
	// threads took 1.3 ms of a command-line run on a loaded machine where
	// a thread's wake-up is dear, more than the checks, and the terminal's
	// came on top of them.
	f := waitFor{ctx: ctx, timeout: r.Timeout}
	taken := func() {}
	var term chan os.Signal
	if r.Signals {
		f.signals = make(chan os.Signal, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			signal.Notify(f.signals, Heeded(stopSignals...)...)
			term = takeTerminal()
		}()
		taken = func() { <-done }
		defer func() {
			<-done
			signal.Stop(f.signals)
			if term != nil {
				signal.Stop(term)
			}
		}()
	}
	c := newCommandRun(r)
	if err := refuseInWorker("Supervise"); err != nil {
		return c.finish(receipt.OutcomeOf(err))
	}
	if err := checkMemory(r.MaxMemoryMB); err != nil {
		return c.finish(receipt.OutcomeOf(err))
	}
	if err := checkNames(c.abs, r.Cwd, r.Args); err != nil {
		return c.finish(receipt.OutcomeOf(err))
	}
	if err := c.unenforced(); err != nil {
		return c.finish(receipt.OutcomeOf(err))
	}
	var pol core.Policy // the zero Policy asks nothing (--no-confine)
	if r.Confine != core.ModeOff {
		pol = c.derived
	}
	// What the supervisor's side of confinement reads of this process
	// before a worker starts, it reads beside the worker's temporary
	// directory, pipes and environment (startWorker).
	c.beside = make(chan struct{})
	go func() {
		defer close(c.beside)
		confine.LearnWorkerHolds(pol, r.MaxMemoryMB)
	}()
	taken()
	// The worker starts first: its runtime starts while the supervisor
	// takes the receipt's parameters, reserves it and reads the program.
	// It runs nothing until the request comes, and gets none when either
	// fails.
	phase.Mark("worker start")
	w, err := startWorker(workerSpec{marker: c.rec.RunID, env: r.Budget.Has(budget.Env), dir: r.Cwd,
		policy: pol, memoryMB: r.MaxMemoryMB, runID: c.rec.RunID, stdin: r.Stdin, stdout: r.Stdout,
		stderr: r.Stderr, tool: r.Tool, oneShot: true})
	if err != nil {
		return c.finish(receipt.OutcomeOf(err))
	}
	defer w.retire()
	if r.Signals {
		defer followTerminal(w, term)()
	}
	phase.Mark("worker started")
	c.takeParameters()
	phase.Mark("parameters taken")
	g, err := c.reserve()
	if err != nil {
		// Nothing runs without a place for its receipt.
		w.kill()
		if codes.OutOfDescriptors(err) {
			// The worker's pipes held descriptors the reservation
			// wanted: ended, they hold none, and the refusal has its
			// receipt where there is one to be had now (finish).
			w.retire()
			return c.finish(receipt.OutcomeOf(err))
		}
		c.rec.Outcome = receipt.OutcomeOf(err)
		return c.rec
	}
	if err := c.joinReceipts(); err != nil {
		w.kill()
		return c.finish(receipt.OutcomeOf(err))
	}
	phase.Mark("guard built")
	req, err := c.request(w, g, f)
	if err != nil {
		w.kill()
		o := receipt.OutcomeOf(err)
		var ss *stoppedReading
		if errors.As(err, &ss) {
			if n, ok := ss.sig.(syscall.Signal); ok {
				o.ExitStatus = codes.ExitSignaled + int(n)
			}
		}
		return c.finish(o)
	}
	phase.Mark("request made")
	w.begin(r.Budget, c.derived)
	w.relay.feedInput()
	if r.Timeout > 0 {
		f.deadline = time.Now().Add(r.Timeout)
		// The worker's copy, read from the clock after this one: it
		// never stops the program before the supervisor would.
		if now, ok := wire.MonotonicNow(); ok {
			req.Deadline = now + int64(r.Timeout)
		}
	}
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		_ = w.sendRequest(req) // a worker that died early is seen by its wait
		w.reqW.Close()
		phase.Mark("request sent")
		// Leftovers of earlier runs are swept once the request is on
		// its way, off the path to the worker's first statement.
		sweepRuns()
	}()
	_, s, _ := w.first(f)
	raw := s.raw
	if !s.eof && (s.stop == nil || codes.CodeOf(s.stop) == codes.E307) {
		// A worker asked to stop while its first record was read answers
		// after it, saying where the program was: read on to its end,
		// for at most stopGrace more once it was asked.
		stop, g := s.stop, f
		if stop != nil {
			g.deadline = time.Now().Add(stopGrace)
		}
		s = w.await(g, w.readToExit(wire.MaxResultBytes-len(raw)))
		if stop != nil {
			s.stop = stop
		}
		raw = append(raw, s.raw...)
	}
	phase.Mark("worker exited")
	res, final, after, bad := wire.ReadResults(raw)
	if bad == nil {
		if bad = ownEffects(r.Budget, res.Effects); bad != nil {
			res.Effects = nil
		}
	}
	takeWorker(c.rec, &res, req.Piped)
	// The receipt never records a limit that was not held: the worker
	// says which one its address space got.
	c.rec.RunParameters.MaxMemoryMB = res.MemoryLimitHeld
	if r.MaxMemoryMB > 0 && res.Confinement.Level != "" {
		c.rec.SetConfinement(res.Confinement.With(
			memoryGap(r.MaxMemoryMB, w.started.Memory(), w.status != nil, res.MemoryLimitHeld > 0)))
	}
	var fo *receipt.Outcome
	if final {
		fo = &res.Outcome
	}
	if w.endedFirst(s, fo) {
		s.stop = nil
	}
	keep := noKeep
	if r.Receipts != "" {
		keep = func(report string) string { return c.rec.KeepCrashReport(r.Receipts, report) }
	}
	o, said := w.conclude(s, fo, bad, keep)
	w.end()
	if err := w.relay.undelivered(); r.Undelivered || !brokenpipe.ReaderGone(err) {
		o = undeliveredOutcome(o, err)
	}
	c.rec.Observed = w.observe()
	c.rec.Observed.Made = c.made
	if n := c.rec.Observed.StdoutBytes; n != nil && r.StdoutKept > 0 {
		c.rec.StdoutCut = receipt.CutStdout(*n, r.StdoutKept)
	}
	switch {
	case after: // else all the worker said, it said before the program's first statement
		reported(c.rec, r.Budget, said, receipt.FieldEffects, receipt.FieldWorkerTimings)
	case said != "" && len(raw) > 0 && !final:
		// The outcome drawn from the crash file, after a first record
		// that was not the run's end: the program began, and could have
		// written that file.
		reported(c.rec, r.Budget, said)
	}
	rec := c.finish(o)
	// The sweep ends with the run, for at most resultGrace more: a
	// command line whose program ended first exited in the middle of it,
	// and what it had not yet ended or removed stayed until a later run.
	select {
	case <-swept:
	case <-time.After(resultGrace):
	}
	return rec
}

// undeliveredOutcome is o, the outcome of a run whose output the
// caller's writer refused with err (nil for none): a run that ended well
// fails (E305), and a program's failure (the broken pipe it met, once the
// relay stopped reading) says why; any other end stands. Otherwise the
// run would say ok, its output lost (TestRunOutputRefused).
func undeliveredOutcome(o receipt.Outcome, err error) receipt.Outcome {
	if err == nil || (o.Status != receipt.StatusOK && o.Code != codes.E305) {
		return o
	}
	why := fmt.Sprintf("the run's %v: what the program wrote there from then on was not "+
		"delivered", err)
	if o.Status == receipt.StatusOK {
		return receipt.OutcomeOf(codes.Errorf(codes.E305, "%s", why))
	}
	o.Message += "; " + why
	return o
}

// commandRun is the supervisor's side of one command-line run: its
// receipt, and the policy its budget derives.
type commandRun struct {
	r       Run
	abs     string // the program's absolute path
	rec     *receipt.Receipt
	derived core.Policy
	started time.Time
	made    []string // the granted directories made for the run (makeGranted)
	// beside is closed once what the supervisor's side of confinement
	// reads beside the worker's start (confine.LearnWorkerHolds) is
	// read; nil before it is begun.
	beside chan struct{}
}

func newCommandRun(r Run) *commandRun {
	c := &commandRun{r: r, abs: r.Program, started: time.Now()}
	if !filepath.IsAbs(c.abs) {
		c.abs = filepath.Join(r.Cwd, c.abs)
	}
	// The program is read once, by request; its digest is taken then.
	c.rec = receipt.NewForSource(c.abs, nil, r.Budget, r.Args)
	c.rec.Timings.Started = c.started.UTC()
	// The one derivation of the run's OS policy: its digest goes in the
	// receipt, and the document itself to the worker, which applies it
	// as it is sent.
	c.derived = core.OSPolicy(r.Budget, core.Options{Mode: r.Confine})
	return c
}

// unenforced refuses (E326), before a worker starts, a run that requires
// a confinement level its policy cannot have anywhere: a granted module
// that widens the policy to nothing enforced makes every run of the
// budget level none, which no required level accepts. The worker would
// refuse it too, after saying that the layer is off; refused here, the
// reason is said once, and the receipt says what the run would have been
// held at.
func (c *commandRun) unenforced() error {
	if c.r.Require.Rank() <= core.None.Rank() || c.r.Confine == core.ModeOff ||
		c.derived.Enforced {
		return nil
	}
	held := core.NotConfined(c.derived.OffReason())
	c.rec.SetConfinement(held)
	return codes.Errorf(codes.E326, "required level %s: this run's confinement is %s (%s); "+
		"it was refused before its first statement", c.r.Require, held.Level, held.Reason)
}

// takeParameters takes the receipt's parameters (the policy's digest
// among them): while the worker's runtime starts, or in finish for a run
// that ends before.
func (c *commandRun) takeParameters() {
	if c.rec.RunParameters.OSPolicySHA256 == "" {
		c.rec.RunParameters.Asked(c.r.Confine, c.r.Require, c.r.Timeout, c.derived.SHA256())
		c.rec.RunParameters.CredentialsLent = c.r.Lend
		c.rec.RunParameters.Durability = c.r.Durability
	}
}

// finish ends the run with o: its receipt is written (or finished), a run
// the supervisor could not start too, with the reason.
func (c *commandRun) finish(o receipt.Outcome) *receipt.Receipt {
	c.takeParameters()
	c.rec.Outcome = o
	c.rec.Timings.WallMS = receipt.MS(time.Since(c.started))
	if c.r.Receipts != "" {
		if c.beside != nil {
			// What is read beside the worker's start holds descriptors
			// while it reads (a caller's ulimit -n of 8 had the receipt
			// of a run whose start failed refused them, reserved or
			// finished, now and then): once it is read, it holds none.
			<-c.beside
		}
		if path, _ := c.rec.Stored(); path == "" {
			if _, err := c.rec.Reserve(c.r.Receipts); err != nil {
				return c.rec
			}
		}
		c.rec.Finish()
		phase.Mark("receipt finished")
	}
	return c.rec
}

// reserve reserves the receipt, when the run keeps one, and resolves
// what no grant reaches: Sabline's own locations, the receipt's among
// them, and the operator's credential locations but those lent. It is
// resolved here, while the worker's runtime starts, and travels in the
// request: the worker's environment does not carry the operator's
// SABLINE_CREDENTIALS. The guard is built beside the reservation (each
// is a millisecond or so, the run's critical path while the worker
// starts), and built again with the directories the reservation made,
// when it made any: the same set as one built after it.
func (c *commandRun) reserve() (*guard.Set, error) {
	guarded := append([]string(nil), c.r.Guarded...)
	if c.r.Receipts == "" {
		return guardMatched(guarded, c.r.GuardedMatched, c.r.Lend), nil
	}
	built := make(chan *guard.Set, 1)
	go func() { built <- guardMatched(guarded, c.r.GuardedMatched, c.r.Lend) }()
	made, err := c.rec.Reserve(c.r.Receipts)
	phase.Mark("receipt reserved")
	g := <-built
	if err != nil {
		return nil, err
	}
	if len(made) > 0 {
		g = guardMatched(slices.Concat(guarded, made), c.r.GuardedMatched, c.r.Lend)
	}
	return g, nil
}

// joinReceipts makes the directory the run's receipt was reserved in known
// to the register of this machine (guard.JoinAs), as a store's directory
// is (receipt.OpenStore): no run of another Sabline on the machine then
// reaches it. Every out-of-process run joins here, the command line's,
// sabline.Run's, eval's and replay's (the last three never joined, and
// another Sabline's run granted a directory above theirs read and wrote
// it), and every run, since a directory removed and made again by
// another process may have had its entry pruned meanwhile (a join once a
// process left it unknown: TestRunJoinsItsReceiptsDirectoryMadeAgain);
// an entry already there is kept as it is. One that cannot be is E331:
// the receipt says so, and nothing runs.
func (c *commandRun) joinReceipts() error {
	path, _ := c.rec.Stored()
	if path == "" {
		return nil // no receipt kept
	}
	dir := filepath.Dir(path)
	return guard.JoinAs("the receipts directory "+dir, dir)
}

// request refuses a budget that names what no grant reaches, reads the
// program (held to f: readWaiting) and makes the worker's request.
func (c *commandRun) request(w *workerProc, g *guard.Set, f waitFor) (*wire.Request, error) {
	r := c.r
	// Each granted path as it resolves now, when the run is admitted, and
	// before the program is read (which may wait on a pipe): the admission
	// judges it so, the directories granted are made beneath it, and the
	// worker withholds a grant that resolves otherwise when it starts, so
	// a grant swapped for a link meanwhile is held nowhere
	// (TestGrantSwappedWhileTheProgramIsRead).
	adm := admitted(r.Budget)
	if err := admitAs(g, r.Budget, adm); err != nil {
		return nil, err
	}
	src, piped := r.Source, false
	var err error
	if src == nil {
		src, piped, err = readWaiting(c.abs, f)
	} else if len(src) > program.MaxBytes {
		err = textTooLarge(c.abs, len(src))
	}
	if err != nil {
		return nil, err
	}
	c.rec.Program.SHA256 = sha256Hex(src)
	if c.makeGranted(&w.relay, adm); len(c.made) > 0 {
		// A directory made for a grant may be the one a guarded location
		// that is not there yet would be made in (~/.config for
		// ~/.config/gh): the set, built before it was there, expands the
		// directory above it, not it, so it is built again now, as a
		// pool's worker builds its set, and the carving keeps the
		// location out of the grant.
		g = g.Refresh(guard.Inputs{}, guard.OS())
	}
	req := &wire.Request{
		Program: c.abs, SHA256: c.rec.Program.SHA256, Args: r.Args, Budget: r.Budget, Cwd: r.Cwd,
		Guard: g.Wire(), Admitted: adm,
		Confine: r.Confine, Faults: r.Faults, MaxMemoryMB: r.MaxMemoryMB,
		TempDir: w.tmp, Procs: w.procs, Relayed: w.relayed,
	}
	need, expected := required(r.Require, r.Confine, c.derived)
	req.Require, req.Expected = need.Level, expected
	if expected {
		req.Layers = holding(need)
	}
	if r.Confine != core.ModeOff {
		req.Policy, req.PolicySHA256 = &c.derived, c.rec.RunParameters.OSPolicySHA256
	}
	if r.Source != nil {
		req.Source = src
	}
	if piped {
		// A pipe has no directory and cannot be read twice: the worker
		// compiles the bytes read here, from a file of the run's own, and
		// its loads are resolved in that directory, which holds no other
		// program file.
		req.Program, req.Piped = filepath.Join(w.tmp, pipedProgram), true
		if err := os.WriteFile(req.Program, src, 0o600); err != nil {
			return nil, codes.Errorf(codes.E310, "hand the program to the worker: %w", err)
		}
	}
	return req, nil
}

// makeGranted makes the granted directories that do not exist yet, once
// the run is admitted and its program read, before the worker gets its
// policy: each is then held as granted, not beneath the directory above
// it. Each is made where it resolved when the run was admitted (adm),
// never through a link made on its way since. One that cannot be made is
// said on the run's standard error, under the lock the relay holds for
// each of the worker's writes there (the worker has started), escaped
// (codes.TerminalSafe: the path is the grant's as it resolved, whose
// names another may have chosen), and left to the level, which says
// where it is held.
func (c *commandRun) makeGranted(rl *relay, adm map[string]string) {
	made, err := confine.MakeGranted(c.derived, adm)
	c.made = made
	if err != nil {
		rl.std.Lock()
		defer rl.std.Unlock()
		fmt.Fprintf(c.r.Stderr, "sabline: %s\n", codes.TerminalSafe(err.Error()))
	}
}

// programTooLarge refuses a program past program.MaxBytes.
func programTooLarge(name string) error {
	return codes.Errorf(codes.E316, "program %s is larger than %d bytes", name, program.MaxBytes)
}

// textTooLarge is the refusal of a program given as text (Source), past
// the bound: it names the text, not a file, and says what to send.
func textTooLarge(name string, n int) error {
	e := codes.Errorf(codes.E316, "the program's text (%s) is %d bytes, more than %d: nothing ran",
		filepath.Base(name), n, program.MaxBytes)
	e.Do = "Send a shorter program; a program is at most 16 MiB. Nothing ran."
	return e
}

// pipedProgram is the name, in the run's temporary directory, of a
// program the supervisor read from a pipe.
const pipedProgram = "program.vel"

// stoppedReading is the error of a run stopped from outside while its
// program was being read (readWaiting): sig is the operator's signal,
// nil for the timeout or the context.
type stoppedReading struct {
	sig os.Signal
	err error
}

func (e *stoppedReading) Error() string { return e.err.Error() }
func (e *stoppedReading) Unwrap() error { return e.err }

// readWaiting is ReadProgram held to what ends a run's waits beside the
// worker (f): the timeout, counted from here, the context and the
// operator's signals. A named pipe holds its open until a writer comes,
// and its read until the writer writes or goes: a program path that is
// one (planted in a directory of programs, say) would otherwise hold the
// run, deaf to Ctrl-C and to --timeout, for as long as no writer comes.
// Stopped, the run ends with E307 or E309 and its receipt; the read is
// left to end when it can (a command line exits; a library caller's
// goroutine ends with the pipe's writer).
func readWaiting(path string, f waitFor) ([]byte, bool, error) {
	type read struct {
		src   []byte
		piped bool
		err   error
	}
	done := make(chan read, 1)
	go func() {
		src, piped, err := ReadProgram(path)
		done <- read{src, piped, err}
	}()
	var timeout <-chan time.Time
	if f.timeout > 0 {
		t := time.NewTimer(f.timeout)
		defer t.Stop()
		timeout = t.C
	}
	var cancelled <-chan struct{}
	if f.ctx != nil {
		cancelled = f.ctx.Done()
	}
	// Said only of a named pipe, which os.Stat looks at without waiting.
	waiting := func() string {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
			return "; a named pipe waits for a writer: give the program as a file"
		}
		return ""
	}
	select {
	case r := <-done:
		return r.src, r.piped, r.err
	case <-timeout:
		return nil, false, &stoppedReading{err: codes.Errorf(codes.E307,
			"the run took longer than its timeout %s reading its program %s and was stopped%s",
			f.timeout, path, waiting())}
	case <-cancelled:
		return nil, false, &stoppedReading{err: codes.Errorf(codes.E307,
			"the run was cancelled and stopped while reading its program %s: %v%s", path,
			context.Cause(f.ctx), waiting())}
	case sig := <-f.signals:
		return nil, false, &stoppedReading{sig: sig, err: codes.Errorf(codes.E309,
			"the supervisor received %v while reading the program %s, and stopped the run%s",
			sig, path, waiting())}
	}
}

// ReadProgram reads the program once, at most program.MaxBytes of it, and
// says whether it is something other than a regular file (a pipe, a
// terminal, /dev/stdin), which can be read only once. A directory, and a
// file past the bound (/dev/zero), are E316. sabline audit reads the
// program it audits here too, as a run would read it.
func ReadProgram(path string) (src []byte, piped bool, err error) {
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
	size := int64(-1) // a pipe's size is not what it holds
	if fi.Mode().IsRegular() {
		size = fi.Size()
	}
	src, err = program.Read(f, size)
	switch {
	case errors.Is(err, program.ErrTooLarge):
		return nil, false, programTooLarge(path)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) { // it names the path: the message does already
			err = pe.Err
		}
		return nil, false, codes.Errorf(codes.E316, "program %s: read: %w", path, err)
	}
	return src, !fi.Mode().IsRegular(), nil
}

// deathOutcome says how a worker that wrote no result ended: killed by the
// kernel past its cgroup's memory limit (oom), killed by a signal, out of
// memory under its address-space limit, or crashed, as the crash report
// the Go runtime wrote into its temporary directory tmp (see wire.CrashFile)
// says. memoryMB is the run's memory limit, memHeld the address-space
// limit the worker said it holds; kept names where the report was kept,
// "" when it was not. told says the outcome was drawn from the crash
// file, its words or its absence: descriptor 2 and the temporary
// directory are the worker's, and a program that makes raw system calls
// can write that file, or remove it, before it exits, so what it says is
// the worker's word (receipt.FieldOutcome), not what the supervisor saw.
// A signal another process sent that the Go runtime catches (SIGSEGV,
// SIGBUS, SIGQUIT, SIGABRT and the like), which it reports and then exits
// 2, is E309 with 128+N, as a signal that killed the worker is, not E310,
// "a fault in Sabline" (sentSignal).
func deathOutcome(ps *os.ProcessState, memoryMB, memHeld int, oom bool,
	crash, kept, tmp string) (o receipt.Outcome, told bool) {
	where := ""
	if kept != "" {
		where = "; the worker's crash report is in " + kept
	}
	if oom {
		return receipt.OutcomeOf(codes.Errorf(codes.E308,
			"the worker ran out of memory under its memory limit of %d MB: the kernel ended it at "+
				"its cgroup's memory.max%s", memoryMB, where)), false
	}
	if sig, ok := killedBy(ps); ok {
		o := receipt.OutcomeOf(codes.Errorf(codes.E309,
			"the worker was killed by signal %d (%s) before it finished", sig, signalName(sig)))
		o.ExitStatus = codes.ExitSignaled + sig
		return o, false
	}
	first := ""
	for _, line := range strings.Split(crash, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			first = line
			break
		}
	}
	if memHeld > 0 && allocatorThrew(crash) {
		return receipt.OutcomeOf(codes.Errorf(codes.E308,
			"the worker ran out of memory under its memory limit of %d MB: the address-space "+
				"limit stopped an allocation (the worker's own, or the lower one its caller set, "+
				"ulimit -v, which its standard error names)%s", memHeld, where)), true
	}
	if memHeld == 0 && outOfMemory(crash) {
		// No address-space limit held the run (--no-memory-limit, or one
		// the kernel would not set): the machine refused the runtime an
		// allocation, the program's doing as much as under a limit.
		return receipt.OutcomeOf(codes.Errorf(codes.E308, "%s%s", noLimitHeldOOM, where)), true
	}
	if interpreterOverflowed(crash) {
		// The interpreter recursed once for each level of a value the
		// program made (hashing it, printing it), past the Go runtime's
		// stack limit: the program's doing, as a call nested past
		// Starlark's own bound is (E305), not a fault of Sabline's.
		return receipt.OutcomeOf(codes.Errorf(codes.E305,
			"the program nested a value deeper than the worker's stack holds: the interpreter "+
				"went down it one level at a time (to hash or print it) past the Go runtime's "+
				"stack limit; nest it less%s", where)), true
	}
	if sig, ok := sentSignal(crash); ok {
		// Another process sent it a signal its Go runtime catches (kill
		// -SEGV, -QUIT, -ABRT), or the run's own program did through raw
		// calls: the run was killed, not crashed.
		o := receipt.OutcomeOf(codes.Errorf(codes.E309,
			"the worker was sent signal %d (%s) by a process (another, or the run's own program "+
				"through raw calls), and its runtime ended it before it finished%s",
			sig, signalName(sig), where))
		o.ExitStatus = codes.ExitSignaled + sig
		return o, true
	}
	if first != "" {
		return receipt.OutcomeOf(codes.Errorf(codes.E310,
			"the worker exited with status %d without a result: %q%s",
			ps.ExitCode(), wire.Clip([]byte(first), 200), where)), true
	}
	if _, err := os.Lstat(filepath.Join(tmp, wire.CrashFile)); err != nil {
		// It never made its crash file: it never ran as a worker.
		e := codes.Errorf(codes.E310, "the worker exited with status %d before it began: the "+
			"program it was started from did not run it as a worker; a program that embeds "+
			"Sabline must call %s at the top of main", ps.ExitCode(), handOverCall)
		return receipt.OutcomeOf(e), true
	}
	return receipt.OutcomeOf(codes.Errorf(codes.E310,
		"the worker exited with status %d without a result%s", ps.ExitCode(), where)), false
}

// memoryWatch says what the worker's memory watch reads
// (internal/worker's memoryGauge): on Linux the memory the process holds
// of its own, a mapping made outside the Go runtime included; elsewhere
// what its Go runtime holds.
func memoryWatch() string {
	if goruntime.GOOS == "linux" {
		return "the worker's watch of its resident memory"
	}
	return "the worker's watch of its Go runtime's memory"
}

// outsideMemoryWatch names the supervisor's reads of a worker's memory
// (workerProc.memoryWithin) among what holds a memory limit.
var outsideMemoryWatch = fmt.Sprintf("the supervisor's reads of that memory from outside "+
	"(which end the run past the limit and a quarter more, %d MB at least)", minOutsideSlack>>20)

// memoryGap is what a run's confinement says of its memory limit of mb
// megabytes: what holds it, of the supervisor's side (hold, and its reads
// of the worker's memory from outside when outside) and of the worker's
// own (its watch under the Go runtime's soft limit, and the address-space
// limit when it holds), and why no cgroup does where one could have. The
// limit stands, so the level does not change.
func memoryGap(mb int, hold core.MemoryHold, outside, addressSpace bool) core.Gap {
	var by []string
	if hold.By != "" {
		by = append(by, hold.By)
	}
	by = append(by, memoryWatch()+" (beside the Go runtime's soft limit)")
	if outside {
		by = append(by, outsideMemoryWatch)
	}
	if addressSpace {
		by = append(by, "the address-space limit (RLIMIT_AS) as a backstop")
	}
	s := fmt.Sprintf("the memory limit of %d MB is held by %s", mb, by[0])
	for i, b := range by[1:] {
		if i == len(by)-2 {
			s += " and " + b
		} else {
			s += ", " + b
		}
	}
	if hold.Why != "" {
		s += "; no cgroup holds it: " + hold.Why
	}
	return core.Gap{Layer: core.LayerMemory, Kind: core.GapHeld, Text: s}
}

// readCrashReport reads at most MaxCrashReportBytes of the crash report in
// tmp: a regular file only, never through a link the worker put there. A
// longer one keeps its beginning and ends in a line that says it was cut
// (crashReportCut), MaxCrashReportBytes in all, as its copy beside the
// receipt does.
func readCrashReport(tmp string) string {
	f, err := openRegular(filepath.Join(tmp, wire.CrashFile))
	if err != nil {
		return "" // none when the worker died before it could make one
	}
	defer f.Close()
	b, over := bounded.Read(f, MaxCrashReportBytes)
	if over {
		note := fmt.Sprintf(crashReportCut, MaxCrashReportBytes)
		b = append(b[:MaxCrashReportBytes-len(note)], note...)
	}
	return string(b)
}

// crashReportCut is the line that ends a crash report longer than its
// bound (%d): the supervisor read no more of it.
const crashReportCut = "\nsabline: the crash report was cut here: it is longer than %d bytes, " +
	"and the rest was not read\n"

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
	if outOfMemory(crash) {
		return true
	}
	before, _, ok := strings.Cut(crash, "runtime.throw(")
	if !ok {
		return false
	}
	_, stack, _ := strings.Cut(crash[len(before):], "\n")
	frames := strings.SplitN(stack, "\n\n", 2)[0] // the throwing goroutine's frames
	return strings.Contains(frames, "runtime.mallocgc") ||
		strings.Contains(frames, "runtime.(*mheap)") ||
		strings.Contains(frames, "runtime.(*mcache)")
}

// outOfMemory reports whether a Go crash report is the runtime's own
// word that the system refused it memory.
func outOfMemory(crash string) bool {
	return strings.Contains(crash, "fatal error: out of memory") ||
		strings.Contains(crash, "fatal error: runtime: out of memory")
}

// noLimitHeldOOM is the outcome of a run that no address-space limit
// held, whose worker the machine refused memory.
const noLimitHeldOOM = "the worker ran out of memory with no memory limit held: the machine " +
	"refused an allocation; run it with a memory limit (--max-memory-mb) to have the run " +
	"refused within it, before the machine's memory runs short"

// interpreterOverflowed reports whether a Go crash report is the
// runtime's stack limit passed by the interpreter itself
// (go.starlark.net): the frame that overflowed is the first of the
// goroutine the report names first. A tuple nested 12 million deep, made
// in a few lines and hashed as a key, overflows it so: the program's
// doing, E305, not E310, "a fault in Sabline" (TestDeathOfADeepValue).
func interpreterOverflowed(crash string) bool {
	if !strings.Contains(crash, "fatal error: stack overflow") {
		return false
	}
	_, g, ok := strings.Cut(crash, "\ngoroutine ")
	if !ok {
		return false
	}
	_, frames, _ := strings.Cut(g, "\n")
	return strings.HasPrefix(frames, "go.starlark.net/")
}

var errStopWalk = errors.New("stop")

// workerThreads is the most threads a worker may run: linux.MaxThreads,
// and one for each processor the machine offers, or each P the operator's
// GOMAXPROCS asks for where that is more. A worker's runtime runs a
// handful and about one for each P it runs with (the supervisor's count,
// once confined), one more for each goroutine blocked in a system call.
var workerThreads = linux.MaxThreads + max(goruntime.NumCPU(), goruntime.GOMAXPROCS(0))

// threadsWithin says E310 when the worker pid runs more than
// workerThreads threads (threadsOf). A count that cannot be read (the
// worker exited, a system with no such count) says nothing: an exit ends
// the step. Read every BoundsWatchEvery, it lets a program make what it
// makes in one tick past the bound (some thousands), and then the worker
// and every thread it made are killed.
func threadsWithin(pid int) error {
	n, ok := threadsOf(pid)
	if !ok || n <= workerThreads {
		return nil
	}
	return codes.Errorf(codes.E310, "the worker ran %d threads, more than the %d the supervisor "+
		"lets it run: the run was stopped", n, workerThreads)
}

// tempDirWithin measures dir, the private temporary directory of the
// worker pid, and says when it is past MaxTempDirBytes or
// MaxTempDirEntries. The walk itself stops at the entry bound, so a
// directory of a million files costs the supervisor no more than one of
// MaxTempDirEntries, which still cost some 250 ms here when they are
// directories: the bounds watch paces it by what it takes (measureShare).
// The files on dir's disk that the worker holds and no
// directory lists (unlinkedHeld) count with what the walk finds: a file
// removed while open takes its disk as it did before (a program that
// removed its crash file and wrote 700 MiB into it ended ok). A worker
// holding more descriptors, or mappings of removed files, than one
// measure reads is stopped, as one past the bound: what it holds past
// them cannot be counted. So is one whose directory holds an entry the
// walk cannot look at, but for one removed since it was listed: a path
// past the system's bound on a path's length (PATH_MAX), which a program
// that makes each directory beneath the one before (mkdirat, openat)
// reaches, or a directory it may not read. What lies past it cannot be
// counted (a file of 1 GiB beneath 300 such directories was not, and its
// run ended ok).
func tempDirWithin(dir string, pid int) error {
	var n, size, hidden int64
	if dev, ok := deviceOf(dir); ok {
		var whole bool
		if hidden, whole = unlinkedHeld(pid, dev); !whole {
			return codes.Errorf(codes.E330, "the run held more than %d descriptors, or mappings "+
				"of removed files, which is more than the supervisor reads to measure its private "+
				"temporary directory: the run was stopped", maxHeldScanned)
		}
		size = hidden
	}
	var unmeasured error
	crash := filepath.Join(dir, wire.CrashFile)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		var fi fs.FileInfo
		if err == nil {
			fi, err = d.Info()
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone since it was listed
		}
		if err != nil {
			unmeasured = err
			return errStopWalk
		}
		// The directory and the worker's crash file are Sabline's own:
		// the bound is of the entries made in it beside them.
		if path != dir && path != crash {
			if n++; n > MaxTempDirEntries {
				return errStopWalk
			}
		}
		if fi.Mode().IsRegular() {
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
	case unmeasured != nil:
		var pe *fs.PathError
		if errors.As(unmeasured, &pe) {
			unmeasured = pe.Err // its path may be thousands of bytes
		}
		return codes.Errorf(codes.E330, "an entry in the run's private temporary directory could "+
			"not be measured (%v), and what lies past it is not counted: the run was stopped",
			unmeasured)
	case n > MaxTempDirEntries:
		return codes.Errorf(codes.E330,
			"more than %d entries were made in the run's private temporary directory: the run was stopped",
			MaxTempDirEntries)
	}
	if hidden > 0 {
		return codes.Errorf(codes.E330, "the run's private temporary directory grew past %d MB, "+
			"%d MB of it in files removed from it while held open: the run was stopped",
			MaxTempDirBytes>>20, hidden>>20)
	}
	return codes.Errorf(codes.E330,
		"the run's private temporary directory grew past %d MB: the run was stopped",
		MaxTempDirBytes>>20)
}

// tempPrefix begins the name of every run's private temporary directory.
// Directories an older sabline made (sabline-run-*) hold no lock, and are
// never swept.
const tempPrefix = "sabline-worker-"

// staleAfter is how old a temporary directory must be before a later run
// may sweep it: a supervisor locks its directory just after making it.
// Its age is read from its modification time, the wall clock's: one more
// than staleAfter ahead of the clock was not just made, but made before
// the clock was stepped back, and is as old.
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
// named like one, older than staleAfter (or as far ahead of now: made
// before the wall clock was stepped back), whose lock no live supervisor
// holds. What those runs' workers started and left running is ended first
// (endLeftovers). It removes at most maxSweep of them.
func sweepTempDirs(parent string, now time.Time) (removed []string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var stale []string
	var unlocks []func()
	for _, e := range entries {
		if len(stale) == maxSweep {
			break
		}
		if !strings.HasPrefix(e.Name(), tempPrefix) || e.Type()&fs.ModeType != fs.ModeDir {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if age := now.Sub(fi.ModTime()); age < staleAfter && age > -staleAfter {
			continue // just made: its supervisor may not have locked it yet
		}
		unlock, ok := tryLockDir(dir)
		if !ok {
			continue // its supervisor is alive
		}
		stale, unlocks = append(stale, dir), append(unlocks, unlock)
	}
	// Their workers' TMPDIRs are found as they lead, whatever the
	// spelling of parent the killed supervisors had (a link, say).
	endLeftovers(stale)
	for i, dir := range stale {
		if removeTree(dir) == nil {
			removed = append(removed, dir)
		}
		unlocks[i]()
	}
	return removed
}

// workerEnvKeep names the only variables of the operator's environment a
// worker without the env grant starts with: what the Go runtime reads to
// tune itself, PATH for the host modules that start a program by name, TZ
// for the clock, and where the TLS roots are for net. Everything else
// (tokens, credentials, proxies) stays with the supervisor. The worker
// sets TMPDIR itself. The register's setting goes too: a pool's worker
// reads the register the supervisor reads (guard.Set.Refresh), not the
// machine's default one.
var workerEnvKeep = []string{"PATH", "TZ", "SSL_CERT_FILE", "SSL_CERT_DIR",
	"GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GOTRACEBACK", "GOCOVERDIR", guard.RegisterEnv}

// givenBack is the setting a worker's GODEBUG ends with, the last of a
// name winning: its Go runtime gives memory back with MADV_DONTNEED, as it
// does unless told otherwise, and not with MADV_FREE (madvdontneed=0),
// whose pages stay counted in the process's resident memory until the
// kernel takes them. The memory watch reads that count on Linux; it
// collects and gives memory back before it ends a run, and would end one
// for memory it had given back.
const givenBack = "madvdontneed=1"

// workerEnv derives the worker's environment from the operator's: with the
// env grant (a plain item: it covers every variable), the whole of it;
// without, only workerEnvKeep. Either way never the fault-injection
// variable, which reaches the worker only through the request; and its
// GODEBUG, the operator's or none, ends with givenBack.
func workerEnv(operator []string, envGranted bool) []string {
	env, godebug := []string{}, false
	for _, kv := range operator {
		name, value, _ := strings.Cut(kv, "=")
		if name == fault.Env {
			continue
		}
		if name == "GODEBUG" {
			kv, godebug = "GODEBUG="+strings.TrimPrefix(value+","+givenBack, ","), true
		}
		if envGranted || slices.Contains(workerEnvKeep, name) || knockoutPasses(name) ||
			(phase.Env != "" && name == phase.Env) {
			env = append(env, kv)
		}
	}
	if !godebug {
		env = append(env, "GODEBUG="+givenBack)
	}
	return env
}

// oneProc has a worker start with GOMAXPROCS=1 unless env sets it: its
// runtime then starts fewer threads, and confinement, which reaches every
// thread, has fewer to reach. It returns the environment and the count
// the worker takes once confined (the supervisor's own, and at least
// minWorkerProcs), or 0 when env set one, which stays.
func oneProc(env []string) ([]string, int) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return env, 0
		}
	}
	return append(env, "GOMAXPROCS=1"), max(minWorkerProcs, goruntime.GOMAXPROCS(0))
}

// minWorkerProcs is the fewest Ps (GOMAXPROCS) a confined worker runs
// with, where the supervisor has one: on a machine of one processor, in a
// container held to one, or under an affinity mask of one. A pool's worker
// waits for its next job in a blocking read of its request pipe, holding
// its P in the system call. With no other P, Go's runtime monitor
// (sysmon) takes that one back within tens of microseconds and starts a
// thread to look for work that is not there; with every P then idle it
// sleeps until the next system call wakes it to poll again. With a second
// P idle, it leaves a P in a system call alone for 10 ms (runtime/proc.go,
// retake). Measured (bench/README.md, "A worker's second P"): a door's
// workers switched threads 3.9 times a job on one P, 0.95 on two; on one
// processor, a pooled run with background durability took a third less
// time with two.
const minWorkerProcs = 2

// takeWorker takes what the worker said of the run. For a program read from
// a pipe, the worker compiled a copy: the receipt names the operator's path.
func takeWorker(rec *receipt.Receipt, res *wire.Record, piped bool) {
	if res.Confinement.Level != "" { // "" when the worker died before it was confined
		rec.SetConfinement(res.Confinement.With())
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
