package run

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/broker"
	"github.com/sabline/sabline/internal/resident"
	"github.com/sabline/sabline/internal/watch"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// workerProc is the supervisor's hold on one worker process, the one owner
// of its life: start, the first record it sends once confined, each job
// awaited against its deadline, its context, the operator's signals and
// the bounds the worker is held to, its death, and its retirement. The
// command line's run is a worker with one job, its program (see
// SuperviseContext); a pool's worker serves job after job (see Pool).
// Between jobs nothing of the supervisor watches the worker: an idle
// worker costs no clock tick on either side.
type workerProc struct {
	cmd      *exec.Cmd
	started  confine.Started
	reqW     *os.File // the request pipe: closed, the worker ends once it has answered
	stopW    *os.File // the stop pipe (askToStop), open until it is retired
	resR     *os.File
	res      *bufio.Reader
	tmp      string // its private temporary directory
	unlock   func()
	procs    int  // the GOMAXPROCS it takes once confined (oneProc)
	oneShot  bool // its exit status is its run's: the command line's worker
	memoryMB int  // its memory limit, 0 for none
	memHeld  int  // the address-space limit its first record says it holds
	pid      int
	done     chan struct{} // closed once it has exited and been waited for
	breach   chan error    // the first bound it broke, while a job ran
	// bounds watches, while a step is awaited, what the supervisor holds
	// the worker to from outside: its temporary directory (tempDirWithin),
	// its threads (threadsWithin) and, under a memory limit, its memory
	// (memoryWithin).
	bounds *watch.Watch
	// tempDirPace paces the measures of its temporary directory
	// (measureShare), which its bounds watch makes.
	tempDirPace pace
	// status is its status file, which tells the memory it holds (nil
	// with no memory limit, or where there is none: package resident).
	status  *resident.Status
	closers []io.Closer   // what the supervisor holds for it: closed at retirement
	relay   relay         // the copies between the caller's streams and the worker's pipes
	relayed []lang.FileID // the caller's files among them, which its file effects refuse
	// broker makes its runs' connections: nil unless its policy is one
	// the system brokers (confine.Brokered).
	broker *broker.Broker
	// awaited is the step under way (await), told of the worker's exit
	// and of a bound it broke; nil between steps.
	awaited atomic.Pointer[awaiting]
	// last says its job under way is its last: it exits once it has
	// answered (the command line's worker, a pool's whose run may make
	// raw system calls), and how it exits must agree with its answer.
	last bool
	// retired makes retire's second call (a run that retired its
	// worker early, then its deferred call) do nothing: what it closes
	// it closes once.
	retired sync.Once
}

// workerSpec is how a worker is started.
type workerSpec struct {
	marker   string      // wire.WorkerMarker's value: the run id, or "pool"
	env      bool        // the budget grants env: the worker gets the operator's environment
	dir      string      // its working directory
	policy   core.Policy // the zero Policy under core.ModeOff
	memoryMB int
	runID    string
	// The caller's streams and tool channel, nil for none: each reaches
	// the worker only through a pipe the supervisor made (see relay.go).
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	tool    *os.File
	oneShot bool
	// began is the worker's file of the page it counts its jobs begun on
	// (wire.Began), nil for none: startWorker closes it, whether or not
	// the worker started and holds its own.
	began *os.File
}

// startRefusedBy is err, the error of a worker's start, with what to do
// where the system refused it descriptors (codes.OutOfDescriptors: a
// caller's ulimit -n of 8 to 24 refused every run so), which is no fault
// of Sabline's, as E310's general advice would have it.
func startRefusedBy(err error) error {
	var e *codes.Error
	if errors.As(err, &e) && codes.OutOfDescriptors(err) {
		e.Do = codes.DescriptorsDo("starting the worker")
	}
	return err
}

// startWorker makes the worker's private temporary directory and pipes
// and starts it, held by its supervisor's side of confinement
// (PrepareWorker). The worker runs nothing until its request comes.
func startWorker(s workerSpec) (*workerProc, error) {
	if s.began != nil {
		defer s.began.Close()
	}
	exe, err := workerExecutable()
	if err != nil {
		return nil, codes.Errorf(codes.E310, "find the executable to start the worker: %w", err)
	}
	tmp, unlock, err := newTempDir()
	if codes.CodeOf(err) == codes.E331 {
		// The register could not be told of the runs directory: no fault
		// of Sabline's (nor the register's, where descriptors ran out).
		return nil, startRefusedBy(err)
	}
	if err != nil {
		return nil, startRefusedBy(codes.Errorf(codes.E310,
			"the worker's private temporary directory: %w", err))
	}
	w := &workerProc{
		tmp:      tmp,
		unlock:   unlock,
		oneShot:  s.oneShot,
		last:     s.oneShot,
		memoryMB: s.memoryMB,
		done:     make(chan struct{}),
		breach:   make(chan error, 1),
	}
	fail := func(err error) (*workerProc, error) {
		w.retire()
		return nil, startRefusedBy(err)
	}
	// The worker's ends of its pipes: closed here once it holds them, or
	// once it could not be started.
	var theirs []*os.File
	defer func() {
		for _, f := range theirs {
			f.Close()
		}
	}()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return fail(codes.Errorf(codes.E310, "request pipe: %w", err))
	}
	w.reqW, theirs = reqW, append(theirs, reqR)
	resR, resW, err := os.Pipe()
	if err != nil {
		return fail(codes.Errorf(codes.E310, "result pipe: %w", err))
	}
	w.resR, w.res, theirs = resR, bufio.NewReaderSize(resR, 64<<10), append(theirs, resW)
	stopR, stopW, err := os.Pipe()
	if err != nil {
		return fail(codes.Errorf(codes.E310, "stop pipe: %w", err))
	}
	w.stopW, theirs = stopW, append(theirs, stopR)
	std, tool, err := w.relayEnds(s)
	for _, f := range append(std[:], tool) {
		if f != nil {
			theirs = append(theirs, f)
		}
	}
	if err != nil {
		return fail(err)
	}
	var brokered *os.File
	if confine.Brokered(s.policy) {
		if brokered, w.broker, err = broker.Pair(nil); err != nil {
			return fail(codes.Errorf(codes.E310, "the worker's broker channel: %w", err))
		}
		theirs = append(theirs, brokered)
		w.closers = append(w.closers, w.broker)
	}
	w.cmd = &exec.Cmd{
		Path:   exe,
		Args:   []string{os.Args[0], wire.WorkerArg},
		Env:    append(workerEnv(os.Environ(), s.env), wire.WorkerMarker+"="+s.marker),
		Dir:    s.dir,
		Stdin:  std[0],
		Stdout: std[1],
		Stderr: std[2],
	}
	w.cmd.Env, w.procs = oneProc(w.cmd.Env)
	passPipes(w.cmd, reqR, resW, stopR, tool, brokered, s.began)
	// The supervisor's side of confinement: a session of its own and the
	// parent-death signal on Linux, the job object and the AppContainer
	// on Windows. What it could not do, the worker's own check of itself
	// leaves out of the run's layers.
	w.started, _ = confine.PrepareWorker(w.cmd, s.policy,
		confine.WorkerOptions{MaxMemoryMB: s.memoryMB, TempDir: tmp, RunID: s.runID})
	if err = w.started.Start(); err != nil {
		w.cmd = nil // nothing to wait for
		return fail(codes.Errorf(codes.E310, "start the worker: %w", err))
	}
	w.pid = w.cmd.Process.Pid
	// Its error is recorded where it counts: a cgroup the worker could
	// not be put in is the memory gap's "no cgroup holds it" (Memory), a
	// job on Windows is one the worker finds missing when it checks.
	_ = w.started.AfterStart(w.pid)
	if s.memoryMB > 0 {
		// Opened before the worker can be waited for, so that its pid
		// is still its own; none where the system has no such file.
		if st, err := resident.OfProcess(w.pid); err == nil {
			w.status, w.closers = st, append(w.closers, st)
		}
	}
	w.bounds = watch.New(BoundsWatchEvery, func() func() {
		// Its threads and memory are read at every tick; its temporary
		// directory, whose measure a program can make dear, as its cost
		// allows (pace).
		err := w.tempDirPace.measure(func() error { return tempDirWithin(w.tmp, w.pid) })
		if err == nil {
			err = threadsWithin(w.pid)
		}
		if err == nil {
			err = w.memoryWithin()
		}
		if err != nil {
			return func() { w.breached(err) }
		}
		return nil
	})
	go func() {
		// Anything it left in its process group goes with it, before it
		// is reaped (its pid, the group's id, is its own until then), and
		// with it any hold on its pipes; then the relay delivers what is
		// left.
		_ = w.started.Wait()
		w.relay.end()
		w.exit()
	}()
	return w, nil
}

// sendRequest writes the worker's request, one JSON line, on the
// request pipe.
func (w *workerProc) sendRequest(req *wire.Request) error {
	return w.send(wire.AppendRequest(nil, req))
}

// askToStop writes the stop line (wire.StopLine) on the stop pipe, from a
// goroutine of its own and bounded by stopGrace where the pipe takes a
// deadline (Unix): the stop's grace runs from now whatever the write
// does. The pipe carries nothing else, but a program that makes raw
// system calls can fill it (its worker holds the read end), and then the
// write would wait; the worker is killed at stopGrace all the same, and
// the write ends with the deadline, the worker's end closing, or retire.
func (w *workerProc) askToStop() {
	_ = w.stopW.SetWriteDeadline(time.Now().Add(stopGrace))
	go func() { _, _ = w.stopW.Write([]byte(wire.StopLine)) }()
}

// send writes line on the request pipe.
func (w *workerProc) send(line []byte) error {
	_, err := w.reqW.Write(line)
	return err
}

// exit records that the worker has exited and been waited for, and ends
// the step under way, if any, with it.
func (w *workerProc) exit() {
	close(w.done)
	if a := w.awaited.Load(); a != nil {
		a.endByExit()
	}
}

// exited reports whether the worker has exited.
func (w *workerProc) exited() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// kill ends the worker and everything it started: the supervisor stops
// it. Output the caller has not taken by then is waited for at most
// resultGrace (see relay.end).
func (w *workerProc) kill() {
	w.relay.cut()
	_ = w.started.Kill()
}

// memoryWithin reads, from outside, the memory the worker holds of its
// own (package resident, the count its own watch reads), and says E308
// when it is past the worker's memory limit by more than outsideSlack. It
// holds where the worker's watch cannot act: while the worker's Go
// runtime waits to stop a goroutine that one long operation (a string of
// hundreds of megabytes made in one step) keeps from stopping, every
// other goroutine of the worker waits too, its watch's among them
// (TestMemoryHeldFromOutside). A read that fails (the worker exited) says
// nothing: its exit ends the step.
func (w *workerProc) memoryWithin() error {
	if w.status == nil {
		return nil
	}
	held, err := w.status.Held()
	limit := uint64(w.memoryMB) << 20
	if err != nil || held <= limit+outsideSlack(limit) {
		return nil
	}
	return codes.Errorf(codes.E308, outsideMemoryMessage, held>>20, w.memoryMB)
}

// outsideMemoryMessage is the E308 of a run stopped by the supervisor's
// read of its worker's memory.
const outsideMemoryMessage = "the run used %d MB, over its memory limit of %d MB: " +
	"read by the supervisor, which stopped the worker"

// outsideSlack is how far past a memory limit of limit bytes the
// supervisor lets a worker's memory be before it stops the run: a quarter
// of the limit, at least minOutsideSlack (outsideMemoryWatch says so).
// The worker's own watch gives its garbage back before it decides, and
// the Go runtime's soft limit has the collector keep under the limit;
// from outside, garbage cannot be told from what the program holds.
func outsideSlack(limit uint64) uint64 { return max(limit/4, minOutsideSlack) }

// minOutsideSlack is the least of outsideSlack.
const minOutsideSlack = 16 << 20

// breached records the first bound the worker broke and stops it.
func (w *workerProc) breached(err error) {
	select {
	case w.breach <- err:
	default:
	}
	w.kill()
	if a := w.awaited.Load(); a != nil {
		a.endByBreach()
	}
}

// step is how one wait on a worker ended.
type step struct {
	raw []byte // what the worker wrote for this step, as the read returned it
	// eof: the read met the end of the result pipe, or a record that
	// broke its bound, before a whole record: the worker is gone or going.
	eof bool
	// stop is why the step was ended from outside: the deadline or the
	// context (E307), the operator's signal (E309, sig), a bound the
	// worker broke (E310). nil when the worker answered by itself.
	stop error
	sig  os.Signal
}

// waitFor is what a step is awaited against beside the worker itself.
type waitFor struct {
	ctx      context.Context
	deadline time.Time      // the zero Time for none
	timeout  time.Duration  // the deadline's length, as a message names it
	signals  chan os.Signal // the operator's signals; nil for none
}

// await runs read (one step of what the worker writes on its result pipe)
// in the caller's goroutine, until it returns, the worker exits, the
// deadline passes, the context is done, one of the operator's signals
// comes, or the worker breaks a bound. Asked to stop at its deadline or
// by its context, a program ends at its next step and says where it was;
// a worker that has not answered within stopGrace is killed, and a pool's
// worker that did answer is killed too (its slot starts another), so a
// stop never waits on the worker longer than stopGrace. The worker's
// bounds (bounds: its temporary directory, its memory) are watched from
// outside only while a step is awaited.
//
// The ends other than the read's are callbacks (a timer, the context's
// AfterFunc, the worker's exit and its breaches), not a goroutine waiting
// beside the read: a pool's step that ends with its record wakes no
// goroutine but its caller's (the command line's, which takes the
// operator's signals, has one goroutine waiting for them). The first end
// to come is the step's (awaiting.state); an end from outside ends the
// read by ending the worker (stopStep).
func (w *workerProc) await(f waitFor, read func() ([]byte, error)) step {
	a := &awaiting{w: w, f: f, returned: make(chan struct{}), ended: make(chan step, 1)}
	w.awaited.Store(a)
	a.arm()
	w.bounds.Begin()
	b, err := read()
	s := step{raw: b, eof: err != nil}
	if !a.state.CompareAndSwap(stepReading, stepRead) {
		close(a.returned)
		e := <-a.ended
		s.stop, s.sig = e.stop, e.sig
	}
	a.disarm()
	w.awaited.Store(nil)
	w.bounds.End()
	// A bound the worker broke while the step ended is the step's end.
	if s.stop == nil {
		select {
		case s.stop = <-w.breach:
		default:
		}
	}
	return s
}

// awaiting is one step's wait (await): what can end it besides its read.
type awaiting struct {
	w     *workerProc
	f     waitFor
	state atomic.Int32 // stepReading, then stepRead or stepEnded, whichever comes first
	// returned is closed once the read has returned after an end from
	// outside; ended carries that end's step (stop, sig) once the
	// worker is stopped.
	returned chan struct{}
	ended    chan step
	timer    *time.Timer   // the deadline's, nil for none
	stopCtx  func() bool   // undoes the context's AfterFunc
	quit     chan struct{} // ends the goroutine that takes the operator's signals
}

// The states of a step's wait: the first end to come sets it once.
const (
	stepReading int32 = iota
	stepRead          // the read returned first
	stepEnded         // an end from outside came first
)

// arm sets the step's ends: its deadline, its context, the operator's
// signals; and ends it at once where the worker has exited or broken a
// bound before (w.awaited is set first, so an exit or a breach after
// this is told to a).
func (a *awaiting) arm() {
	if !a.f.deadline.IsZero() {
		a.timer = time.AfterFunc(time.Until(a.f.deadline), func() {
			a.end(step{stop: codes.Errorf(codes.E307,
				"the run took longer than its timeout %s and was stopped", a.f.timeout)})
		})
	}
	if ctx := a.f.ctx; ctx != nil && ctx.Done() != nil { // a context that can be done
		a.stopCtx = context.AfterFunc(ctx, func() {
			a.end(step{stop: codes.Errorf(codes.E307, "the run was cancelled and stopped: %v",
				context.Cause(ctx))})
		})
	}
	if a.f.signals != nil {
		a.quit = make(chan struct{})
		go a.takeSignals()
	}
	select {
	case <-a.w.done:
		a.endByExit()
	default:
	}
	a.endByBreach()
}

// disarm undoes arm once the step has ended.
func (a *awaiting) disarm() {
	if a.timer != nil {
		a.timer.Stop()
	}
	if a.stopCtx != nil {
		a.stopCtx()
	}
	if a.quit != nil {
		close(a.quit)
	}
}

// takeSignals ends the step with the operator's signal (E309). A signal
// that comes after the step ended by itself is left for the next wait.
func (a *awaiting) takeSignals() {
	select {
	case sig := <-a.f.signals:
		if !a.end(step{sig: sig, stop: codes.Errorf(codes.E309,
			"the supervisor received %v and stopped the worker", sig)}) {
			select {
			case a.f.signals <- sig:
			default:
			}
		}
	case <-a.quit:
	}
}

// endByExit ends the step with the worker's exit: what the read returns
// is the step's, and nothing stopped it.
func (a *awaiting) endByExit() { a.end(step{}) }

// endByBreach ends the step with the bound the worker broke, if one
// waits.
func (a *awaiting) endByBreach() {
	if a.state.Load() != stepReading {
		return
	}
	select {
	case err := <-a.w.breach:
		if !a.end(step{stop: err}) {
			select { // the step ended by itself: await takes it from there
			case a.w.breach <- err:
			default:
			}
		}
	default:
	}
}

// end ends the step from outside with s, unless the read or another end
// came first, and stops the worker beside the read (stopStep). It
// reports whether s is the step's end.
func (a *awaiting) end(s step) bool {
	if !a.state.CompareAndSwap(stepReading, stepEnded) {
		return false
	}
	go a.stopStep(s)
	return true
}

// stopStep stops the worker for an end from outside, s, so that the read
// returns, and hands await the step's end. One asked to stop at its
// deadline or by its context (askToStop) has stopGrace to answer; every
// other is killed, and then drained.
func (a *awaiting) stopStep(s step) {
	w := a.w
	if s.stop != nil && codes.CodeOf(s.stop) == codes.E307 {
		w.askToStop()
		t := time.NewTimer(stopGrace)
		defer t.Stop()
		select {
		case <-a.returned:
			if !w.oneShot {
				// It answered: a pool worker stopped once serves no
				// other run, as after any run that did not end by
				// itself, and is ended now rather than waited for (it
				// would wait for its next job).
				w.kill()
			}
			a.ended <- s
			return
		case <-t.C:
			// No answer in time: a builtin blocked in a system call, a
			// worker too busy to read its pipe. It is killed, and the
			// outcome says where the program was is not known (conclude).
		}
	}
	// Anything the worker left running in its session (under
	// --no-confine, a program may start processes) goes with it, and
	// with it any hold on the result pipe.
	w.kill()
	a.drain()
	a.ended <- s
}

// drain waits for the read to return once the worker is stopped or gone,
// at most resultGrace: a descendant of the worker may hold the result
// pipe open, and then it is closed under the read.
func (a *awaiting) drain() {
	t := time.NewTimer(resultGrace)
	defer t.Stop()
	select {
	case <-a.returned:
	case <-t.C:
		a.w.resR.Close()
	}
}

// readRecord reads one record: a line of at most limit bytes. A longer
// one breaks the bound and stops the worker.
func (w *workerProc) readRecord(limit int) func() ([]byte, error) {
	return func() ([]byte, error) {
		line, err := wire.ReadLine(w.res, limit)
		if errors.Is(err, wire.ErrRecordTooLong) {
			w.breached(resultBound(limit))
		}
		return line, err
	}
}

// readToExit reads the rest of the result pipe, at most limit bytes, and
// waits for the worker to exit: the command line's worker sends its final
// record, closes the pipe and exits. More than limit breaks the bound.
func (w *workerProc) readToExit(limit int) func() ([]byte, error) {
	return func() ([]byte, error) {
		b, over := bounded.Read(w.res, int64(limit))
		if over {
			w.breached(resultBound(wire.MaxResultBytes))
			return b, io.ErrShortBuffer
		}
		<-w.done
		return b, nil
	}
}

// resultBound is the breach of a bound on the result pipe.
func resultBound(limit int) error {
	return codes.Errorf(codes.E310,
		"the worker wrote more than %d bytes on its result pipe: the run was stopped", limit)
}

// first awaits the first record: the worker's own, sent once it is
// confined, or as the final record of a run that ended before (refused
// below its required level, say). bad says the record is not one the
// worker could have sent.
func (w *workerProc) first(f waitFor) (res wire.Record, s step, bad error) {
	s = w.await(f, w.readRecord(wire.MaxResultBytes))
	if s.stop != nil || s.eof {
		return res, s, nil
	}
	res, _, _, bad = wire.ReadResults(s.raw)
	w.memHeld = res.MemoryLimitHeld
	return res, s, bad
}

// conclude says how a step that ended a job ended the run: stopped from
// outside; a record the worker could not have sent; the worker's own
// outcome (final: nil when none came), which the end of a worker whose
// job was its last (w.last, exited by now) must agree with: no signal,
// and the exit status the outcome says (a one-shot worker's) or 0 (a
// pool's, which exits 0 once its request pipe is closed); or its death.
// keep keeps a crash report beside the receipt and says where ("" when
// it is not kept). said names the part of the outcome taken from the
// worker's record (receipt.FieldOutcome or receipt.FieldPosition), ""
// when the supervisor's own.
func (w *workerProc) conclude(s step, final *receipt.Outcome, bad error,
	keep func(report string) string) (o receipt.Outcome, said string) {
	switch {
	case s.stop != nil:
		o := receipt.OutcomeOf(s.stop)
		if n, ok := s.sig.(syscall.Signal); ok {
			o.ExitStatus = codes.ExitSignaled + int(n)
		}
		// Where the program was when it stopped: the worker's answer
		// says; a worker killed before it answered said nothing, and the
		// outcome says so rather than give a position.
		if o.Code == codes.E307 && final != nil && final.Code == codes.E307 {
			o.Position, o.Stack = final.Position, final.Stack
			return o, receipt.FieldPosition
		}
		if o.Code == codes.E307 && final == nil {
			o.Message += fmt.Sprintf("; the worker did not answer the stop within %s and was "+
				"killed, so where the program was is not known", stopGrace)
		}
		return o, ""
	case bad != nil:
		return receipt.OutcomeOf(codes.Errorf(codes.E310,
			"the worker's result is not one it could have sent: %w", bad)), ""
	case final == nil:
		return w.death(keep)
	case !w.last:
		return *final, receipt.FieldOutcome
	}
	ps := w.cmd.ProcessState
	if _, killed := killedBy(ps); killed {
		return w.death(keep)
	}
	if got := ps.ExitCode(); got != final.ExitStatus && (w.oneShot || got != 0) {
		if report := readCrashReport(w.tmp); report != "" {
			// It sent its result, then crashed: the crash is the run's end.
			return w.death(keep)
		}
		return receipt.OutcomeOf(codes.Errorf(codes.E310,
			"the worker's result says exit status %d, but it exited with %d: the result is not "+
				"the worker's own", final.ExitStatus, got)), ""
	}
	return *final, receipt.FieldOutcome
}

// endedFirst reports whether a step stopped at its deadline or by its
// context (E307) was answered by the program's own end, not by the stop:
// a final outcome other than E307, which the worker, exited by itself,
// agrees with (no signal, the outcome's exit status), is one it had
// before the stop reached it (a program that ended as its timeout
// passed), and nothing was stopped: the run is that end, its output kept
// (TestTimeoutAfterTheProgramsEnd). A final record the worker's exit
// disagrees with (written by the program before it was stopped) leaves
// the stop the run's end.
func (w *workerProc) endedFirst(s step, final *receipt.Outcome) bool {
	if s.stop == nil || codes.CodeOf(s.stop) != codes.E307 || final == nil ||
		final.Code == codes.E307 {
		return false
	}
	if !w.last {
		return true // a pool's worker's answer is its run's end (conclude)
	}
	if !w.exited() {
		return false
	}
	ps := w.cmd.ProcessState
	_, killed := killedBy(ps)
	return !killed && ps.ExitCode() == final.ExitStatus
}

// end waits for the worker to exit, killing it when it has not within
// resultGrace.
func (w *workerProc) end() {
	select {
	case <-w.done:
	case <-time.After(resultGrace):
		w.kill()
		<-w.done
	}
}

// begin starts a run of the worker under b, whose policy is p: its
// broker, when it has one, makes that run's connections.
func (w *workerProc) begin(b budget.Budget, p core.Policy) {
	w.broker.Begin(broker.GrantsOf(b, p))
}

// observe is what the supervisor saw of the worker (receipt.Observed) for
// the run that is ending: the connections its broker made for the run,
// which it shuts down; how the worker ended, once it has; and, for a
// worker that ran one run alone, the kernel's count of its time and
// memory and what it wrote on the streams the supervisor relays.
func (w *workerProc) observe() receipt.Observed {
	var o receipt.Observed
	o.Connections, o.ConnectionsUnlisted = w.broker.End()
	if !w.exited() {
		return o
	}
	ps := w.cmd.ProcessState
	if sig, ok := killedBy(ps); ok {
		o.Signal = signalName(sig)
	} else {
		status := ps.ExitCode()
		o.ExitStatus = &status
	}
	if w.oneShot {
		o.UserMS, o.SystemMS, o.MaxRSSKB = receipt.MS(ps.UserTime()), receipt.MS(ps.SystemTime()),
			maxRSSKB(ps)
		o.StdoutBytes, o.StderrBytes = w.relay.count(1), w.relay.count(2)
	}
	return o
}

// reported names, in rec, the fields the worker's records set once the
// program could have run ("" passed over), and says when they are
// testimony under b.
func reported(rec *receipt.Receipt, b budget.Budget, fields ...string) {
	rec.Reported = &receipt.Reported{
		Fields: slices.DeleteFunc(fields, func(f string) bool { return f == "" }),
	}
	if len(rec.Reported.Fields) > 0 {
		rec.Reported.Testimony = Testimony(b)
	}
}

// death waits for the worker to exit, killing it when it has not within
// resultGrace, and says how it ended (see deathOutcome); said is
// receipt.FieldOutcome where that was drawn from its crash file, which a
// program with raw system calls could have written, "" where it is what
// the supervisor saw.
func (w *workerProc) death(keep func(report string) string) (o receipt.Outcome, said string) {
	w.end()
	report := readCrashReport(w.tmp)
	o, told := deathOutcome(w.cmd.ProcessState, w.memoryMB, w.memHeld, w.started.OutOfMemory(), report,
		keep(report), w.tmp)
	if told {
		said = receipt.FieldOutcome
	}
	return o, said
}

// retire ends the worker: its request pipe closes, which a pool worker
// takes as the end of its jobs; one that has not exited within stopGrace
// is killed, with everything it started. Its temporary directory is
// removed. A second call does nothing.
func (w *workerProc) retire() { w.retired.Do(w.retireOnce) }

// retireOnce is retire's work.
func (w *workerProc) retireOnce() {
	if w.reqW != nil {
		w.reqW.Close()
	}
	if w.stopW != nil {
		w.stopW.Close()
	}
	if w.cmd != nil {
		select {
		case <-w.done:
		case <-time.After(stopGrace):
			w.kill()
			<-w.done
		}
	}
	w.bounds.Close()
	if w.started != nil {
		w.kill() // anything it left in its session
		w.started.Close()
	}
	if w.resR != nil {
		w.resR.Close()
	}
	for _, c := range w.closers {
		c.Close()
	}
	if w.relay.woken != nil {
		// Last: its Close waits for the feeds that poll it, which the
		// closers above have ended (wake, and each feed's destination).
		w.relay.woken.Close()
	}
	removeTree(w.tmp)
	if w.unlock != nil {
		w.unlock()
	}
}

// noKeep keeps no crash report.
func noKeep(string) string { return "" }
