// Package worker is the worker's side of a run: the sabline binary started
// again with wire.WorkerArg ([Main]) reads its request from the
// supervisor, readies its process (its temporary directory, the crash
// file, the memory limit), applies the policy it was sent to itself, and
// runs the program as every run does (internal/job), sending the
// supervisor its records (internal/wire). A pool worker is confined once
// and then runs one job after another. Nothing here decides a policy:
// the supervisor (internal/run) derived it, and the worker only applies
// it and says what held.
package worker

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/brokenpipe"
	"github.com/sabline/sabline/internal/broker"
	"github.com/sabline/sabline/internal/fault"
	"github.com/sabline/sabline/internal/job"
	"github.com/sabline/sabline/internal/phase"
	"github.com/sabline/sabline/internal/watch"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// Main is the worker: it reads a request from the request pipe,
// compiles the program and its loads, applies the OS policy to every
// thread, runs the fault-injection hook if asked, runs the program, and
// writes a wire.Record to the result pipe. It returns the exit status.
func Main(args []string) int {
	// A relay that stops reading (its caller's reader gone) fails the
	// program's next write, not the worker: the run ends with its outcome.
	// The programs its host modules start find SIGPIPE at its default.
	if err := brokenpipe.Reopen(); err != nil {
		fmt.Fprintln(os.Stderr, "sabline: worker:", err)
		return codes.ExitCrashed
	}
	got, err := workerPipes(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sabline: worker:", err)
		return codes.ExitCrashed
	}
	// What the program starts (a host module's command, and whatever that
	// detaches: a double fork, a session of its own) stays the worker's
	// descendant, and ends when the worker does (Linux); the supervisor's
	// kill of a worker ends it too.
	if err := confine.AdoptOrphans(); err == nil {
		defer confine.KillDescendants()
	} else if !errors.Is(err, core.ErrUnsupported) {
		fmt.Fprintln(os.Stderr, "sabline: worker: adopt orphans:", err)
	}
	// The supervisor may ask to stop as soon as the worker is started:
	// the pipe keeps what it writes until the first run begins.
	stop := &stopper{pipe: got.stop}
	if err := closeInherited(); err != nil {
		fmt.Fprintln(os.Stderr, "sabline: worker:", err)
		return codes.ExitCrashed
	}
	narrowUmask()
	var tool io.ReadWriter // none unless the host passed one
	if got.tool != nil {
		tool = got.tool
	}
	w := &worker{out: got.res, tool: lang.NewToolChannel(tool), stop: stop}
	if got.broker != nil {
		if w.broker, err = broker.NewClient(got.broker); err != nil {
			fmt.Fprintln(os.Stderr, "sabline: worker:", err)
			return codes.ExitCrashed
		}
	}
	// The marker is for the process the supervisor started, not for
	// anything the program may start in turn.
	os.Unsetenv(wire.WorkerMarker)
	in := bufio.NewReaderSize(got.req, requestBuffer)
	line, err := wire.ReadLine(in, wire.MaxRequestBytes)
	if err != nil {
		return w.finish(&wire.Record{}, codes.Errorf(codes.E310, "worker: read request: %w", err))
	}
	req, err := wire.DecodeRequest(line)
	if err != nil {
		return w.finish(&wire.Record{}, codes.Errorf(codes.E310, "worker: %w", err))
	}
	if req.Deadline > 0 {
		w.stop.until(req.Deadline)
	}
	phase.Mark("request read")
	w.guard = req.Guard.Set()
	if req.Pool {
		// A pool's set was built when the pool started, and the kernel's
		// carving lists the directories it expands now: what was made
		// since (a home, a guarded location, another Sabline's store, a
		// kernel surface mounted) is guarded here, before the policy is
		// applied, or the carving would grant it.
		w.guard = w.guard.Refresh(since(), guard.OS())
	}
	if req.Procs > 0 {
		// The supervisor's setting, not the operator's: nothing the
		// program starts inherits it.
		os.Unsetenv("GOMAXPROCS")
	}
	if w.pool = req.Pool; w.pool {
		return w.servePool(&req, in, got.began)
	}
	got.req.Close()
	return w.run(&req)
}

// since is what a pool worker adds to the set its pool built when it
// started (guard.Set.Refresh): the register of Sablines on this machine
// and the mount table, as they are now. What cannot be read adds nothing;
// the pool's set holds what they held then.
func since() guard.Inputs {
	home, _ := os.UserHomeDir()
	sabline, r, _ := guard.RegisteredLocations()
	mounts, _ := guard.ReadMounts()
	return guard.Inputs{Home: home, Sabline: sabline, Owned: r.Owners, Mounts: mounts}
}

// requestBuffer is the request pipe's read buffer: a request with a
// guard of a few hundred locations is read in one read.
const requestBuffer = 32 << 10

type worker struct {
	mu   sync.Mutex // one record at a time on the result pipe
	out  io.WriteCloser
	tool *lang.ToolChannel // the host's tool channel, with no ends when it passed none
	// broker asks the supervisor for every connection of a run under a
	// net grant: nil when the supervisor passed no broker channel, and
	// the run dials itself (--no-confine, or a system with no broker).
	broker *broker.Client
	crash  *os.File // the crash file, opened to append; nil when it could not be made
	done   bool
	// guard is what no grant reaches, as the request carried it.
	guard *guard.Set
	// memory is the memory watch's measure (memoryGauge); nil when the
	// request sets no memory limit.
	memory func() uint64
	// held is a pool worker's measure of what a job left (heldGauge);
	// nil when the request sets no memory limit, and in a worker of one
	// run.
	held func() uint64
	// stop is how the supervisor's stop reaches the program; never nil.
	stop *stopper
	// pool is true for a pool worker: what it writes while a job runs is
	// the job's result (wire.JobResult), which is all the pool reads then.
	pool bool
}

// send writes one record on the result pipe. The worker sends a record
// when the run is confined, before its first statement, so that a run
// killed later (a timeout, a signal) still has its confinement on record;
// and a final record, with the outcome, once. The memory watchdog may race
// the run for the final one.
func (w *worker) send(res *wire.Record, final bool) {
	line, err := wire.AppendRecord(nil, res)
	if err := w.write(line, err, final); err != nil {
		fmt.Fprintln(os.Stderr, "sabline: worker: write result:", err)
	}
}

// write writes one line on the result pipe, and closes it after the
// final one: nothing is written once the final line is. err, from the
// line's encoding, is returned in its place.
func (w *worker) write(line []byte, err error, final bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	if err == nil {
		_, err = w.out.Write(line)
	}
	if final {
		w.done = true
		w.out.Close()
		phase.Mark("final record sent")
	}
	return err
}

// finish sends the final record and returns the exit status.
func (w *worker) finish(res *wire.Record, err error) int {
	res.Outcome = receipt.OutcomeOf(err)
	w.send(res, true)
	return res.Outcome.ExitStatus
}

// run is the command line's worker: its whole life is its one job, which
// the memory watch watches from the compile to the program's end.
func (w *worker) run(req *wire.Request) int {
	res := &wire.Record{Confinement: core.NotApplied()}
	w.prepare(req, res)
	mem := w.watchMemory(req, res.MemoryLimitHeld)
	mem.Begin()
	err := w.job(req, res)
	mem.End()
	return w.finish(res, err)
}

// job compiles the program, confines the worker, sends the first record
// and runs the program; it returns how the program ended.
func (w *worker) job(req *wire.Request, res *wire.Record) error {
	cfg := lang.Config{
		Budget: req.Budget, Cwd: req.Cwd, Guard: w.guard, Args: req.Args,
		Stdin: os.Stdin, Stdout: os.Stdout, Tool: w.tool, Refusal: refusal, Relayed: req.Relayed,
		Dial: w.dial(),
	}
	ran, err := job.Run(cfg, job.Program{Path: req.Program, Source: req.Source}, job.Hooks{
		Compiled: func(in *lang.Interp, prog *lang.Compiled) error { return w.ready(req, res, in, prog) },
		Running:  w.stop.running,
	})
	res.Timings.CompileMS, res.Timings.RunMS = receipt.MS(ran.Compile), receipt.MS(ran.Run)
	res.Files, res.Effects = ran.Files, ran.Effects
	var e *codes.Error
	if ran.Files == nil && req.Piped && errors.As(err, &e) && e.Code == codes.E306 {
		err = &codes.Error{Code: codes.E306, Pos: e.Pos, Err: e,
			Msg: "a program read from a pipe has no directory to load from; run it from a file " +
				"to use load() (" + e.Msg + ")"}
	}
	if ran.Started {
		phase.Mark("program ran")
	}
	return err
}

// dial is how the worker's runs open connections: through the broker
// when it has one, else nil (each run dials itself).
func (w *worker) dial() lang.DialFunc {
	if w.broker == nil {
		return nil
	}
	return w.broker.Dial
}

// ready is the worker's turn between the compile and the first
// statement: it holds the program to the bytes the supervisor read,
// confines the worker, attempts the faults asked for and sends the first
// record. An error refuses the run before its first statement.
func (w *worker) ready(req *wire.Request, res *wire.Record, in *lang.Interp,
	prog *lang.Compiled) error {
	phase.Mark("compiled")
	res.Files = prog.Order // the first record names them
	if req.SHA256 != "" && prog.Digest() != req.SHA256 {
		return codes.Errorf(codes.E316,
			"program %s changed after the supervisor read it (sha256 %s, then %s): run it again",
			req.Program, req.SHA256, prog.Digest())
	}
	t1 := time.Now()
	res.Confinement = w.confine(req)
	res.Timings.ConfineMS = receipt.MS(time.Since(t1))
	phase.Mark("confined")
	if err := below(req, res.Confinement, "this run's confinement is",
		"it was refused before its first statement"); err != nil {
		return err
	}
	in.Hold(res.Confinement.Layers)
	if len(req.Faults) > 0 {
		res.Faults = fault.Attempt(req.Faults, judgeBy(res.Confinement.Layers))
		if err := fault.Refused(res.Faults); err != nil {
			return err
		}
	}
	w.send(res, false)
	phase.Mark("first record sent")
	return nil
}

// below refuses (E326) a confinement held below the request's required
// level: the one asked for, or the one this machine holds the policy at
// (Request.Expected), with how to run it held less. Against the latter,
// held is judged as the machine's level was, the limits the language
// alone holds aside, and it must hold each of the request's Layers too.
// whose says whose confinement it is and then what became of the run.
func below(req *wire.Request, held core.Result, whose, then string) error {
	if req.Expected {
		if held.HoldsAsExpected(req.Require, req.Layers) {
			return nil
		}
		return codes.Errorf(codes.E326, "%s", held.BelowExpected("run", req.Require, req.Layers,
			whose, then, "--require-confinement"))
	}
	if req.Require == "" || held.Level.Rank() >= req.Require.Rank() {
		return nil
	}
	return codes.Errorf(codes.E326, "required level %s: %s %s (%s); %s", req.Require, whose,
		held.Level, held.Reason, then)
}

// prepare readies the worker's process before the policy is applied: its
// temporary directory, the crash file, and the memory limit.
func (w *worker) prepare(req *wire.Request, res *wire.Record) {
	os.Setenv("TMPDIR", req.TempDir)
	// A fatal error of the Go runtime (out of memory under the address-space
	// limit, say) goes to the crash file only, for the supervisor to read
	// when no result comes; the operator sees one line naming it.
	// It is opened to append, so that a pool worker can empty it between
	// two runs (tempDir.clear) and the next report starts at its beginning.
	if f, err := os.OpenFile(filepath.Join(req.TempDir, wire.CrashFile),
		os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600); err == nil {
		if err := crashToFile(f); err != nil {
			fmt.Fprintln(os.Stderr, "sabline: worker: crash report:", err)
		}
		w.crash = f
	}
	// The memory limit is a resource limit, not confinement: it is set
	// whether or not the policy is applied, and the receipt records the
	// address-space limit only when it holds. The Go runtime's soft limit
	// has the collector work to stay under it; the watch (watchMemory)
	// runs only while a job does, and its measure is made here, before
	// the worker is confined.
	if req.MaxMemoryMB > 0 {
		w.memory = memoryGauge()
		if w.pool { // what a job left is read between jobs: a pool's alone
			w.held = heldGauge()
		}
		switch err := confine.LimitMemory(req.MaxMemoryMB); {
		case err == nil:
			res.MemoryLimitHeld = req.MaxMemoryMB
		case errors.Is(err, core.ErrCallerMemoryLimit):
			// Held, more tightly than the run asks: say so, since what
			// the program may allocate is less than its limit.
			fmt.Fprintf(os.Stderr, "sabline: the memory limit of %d MB: %v; an allocation past "+
				"it ends the run (E308)\n", req.MaxMemoryMB, err)
			res.MemoryLimitHeld = req.MaxMemoryMB
		default:
			fmt.Fprintf(os.Stderr, "sabline: the memory limit of %d MB: the address-space limit "+
				"is not held (%v); only the worker's watch of its memory is\n", req.MaxMemoryMB, err)
		}
		if limit := int64(req.MaxMemoryMB) << 20; limit < debug.SetMemoryLimit(-1) {
			debug.SetMemoryLimit(limit)
		}
	}
}

// confine applies the OS policy the request's budget derives, unless the
// run is not to be confined, and says on standard error when the grants
// turned the operating system layer off.
func (w *worker) confine(req *wire.Request) core.Result {
	if req.Procs > 0 {
		// Started on one P (see oneProc), the worker takes the
		// supervisor's count once the policy holds it: threads started
		// from here on inherit the filter, the Landlock domain and the
		// dropped capabilities of the thread that starts them
		// (confine's TestApplyLayers reads them).
		defer goruntime.GOMAXPROCS(req.Procs)
	}
	if req.Confine == core.ModeOff {
		return core.NotConfined("--no-confine: the operating system was asked for nothing")
	}
	if !req.PolicyRecorded() {
		// Never a policy of the worker's own making: the one applied is
		// the one whose digest the receipt records, or none.
		return core.NotConfined("the worker was not sent the policy whose digest the receipt " +
			"records: nothing was applied")
	}
	p := *req.Policy
	if !p.Enforced {
		fmt.Fprintln(os.Stderr, "sabline: "+p.OffReason())
	}
	// The memory limit is set already (see run).
	held, err := confine.Apply(p, confine.ApplyOptions{
		TempDir:   req.TempDir,
		CarveOuts: w.guard.CarveOuts(),
		Admitted:  req.Admitted,
	})
	if err != nil && !errors.Is(err, core.ErrUnsupported) && held.Reason == "" {
		held = core.NotConfined(err.Error())
	}
	return held
}

// leftSlack is how much more memory than it held once ready a pool
// worker may hold as a job ends before it gives back what the job left
// (leftover): the files kept compiled (some 2 MiB at most) and what the
// runtime keeps of its own between jobs fit beneath it, so that a job
// that left little costs one read of the gauge.
const leftSlack = 8 << 20

// leftover is a pool worker's hold on what each job leaves in its
// memory, with a memory limit (nil without one): garbage stays resident
// until the collector runs, when the next job allocates, and until the
// runtime gives it back, later still. The worker's own watch gives it
// back before it decides, but the supervisor's reads from outside
// cannot, and counted it as the next job's: a job that made a string of
// 44 MiB under a limit of 64 MB had the next one, which made 40 MiB in
// one operation, stopped E308, "the run used 84 MB"
// (TestPoolMemoryAnEarlierRunLeft). What the worker holds is read with
// heldGauge, of which a job's garbage is part: not the watch's status
// file, whose read after every job took some 8 to 23 µs, a third of a
// hello's job.
type leftover struct {
	held  func() uint64 // heldGauge
	floor uint64        // what the worker held once ready, and leftSlack
}

// leftover reads what the worker holds now, ready for its first job.
func (w *worker) leftover(req *wire.Request) *leftover {
	if req.MaxMemoryMB <= 0 || w.held == nil {
		return nil
	}
	return &leftover{held: w.held, floor: w.held() + leftSlack}
}

// maxGiveBacks bounds the collections giveBack makes after one job: a
// goroutine's stack shrinks by half at each (a recursion 60,000 calls
// deep left 240 MB resident, 67 MB after one collection, 10 after two).
const maxGiveBacks = 8

// giveBack collects the garbage the job that ended left and gives it
// back to the system (debug.FreeOSMemory), while the worker holds more
// than its floor, at most maxGiveBacks times, and only while each time
// gives some back: the next job starts with about what the worker held
// before the last, as a job on a new worker would, and what a worker
// comes to hold for good (the files kept compiled) costs at most one
// collection a job.
func (l *leftover) giveBack() {
	if l == nil {
		return
	}
	held := l.held()
	for i := 0; i < maxGiveBacks && held > l.floor; i++ {
		debug.FreeOSMemory()
		was := held
		if held = l.held(); held >= was {
			return
		}
	}
}

// memoryEvery is how often the memory watch reads the worker's memory,
// while a job runs.
const memoryEvery = 5 * time.Millisecond

// watchMemory is the worker's watch of the memory it holds for the
// program (nil when the request sets no limit): while a job runs (see
// watch), past the request's limit, it ends the run with E308. The result
// it writes carries only the outcome: the run's own result is still being
// made by another goroutine. What it reads is w.memory's.
func (w *worker) watchMemory(req *wire.Request, held int) *watch.Watch {
	if req.MaxMemoryMB <= 0 {
		return nil
	}
	limit, inUse := uint64(req.MaxMemoryMB)<<20, w.memory
	return watch.New(memoryEvery, func() func() {
		if inUse() <= limit {
			return nil
		}
		// Garbage not yet collected, or collected and not yet given
		// back, is not the program's: only what is left after both ends
		// the run.
		debug.FreeOSMemory()
		used := inUse()
		if used <= limit {
			return nil
		}
		return func() {
			err := codes.Errorf(codes.E308, "the run used %d MB, over its memory limit of %d MB",
				used>>20, limit>>20)
			if w.pool {
				// The pool reads a job's result, not a record.
				r := wire.JobResult{Outcome: receipt.OutcomeOf(err)}
				line, err := wire.AppendJobResult(nil, &r)
				w.write(line, err, true)
				confine.KillDescendants()
				os.Exit(r.Outcome.ExitStatus)
			}
			status := w.finish(&wire.Record{MemoryLimitHeld: held}, err)
			confine.KillDescendants()
			os.Exit(status)
		}
	})
}
