package worker

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/lang"
)

// timeoutStop is why a program asked to stop by the supervisor stopped.
const timeoutStop = "the run took longer than its timeout and was stopped"

// stopper is how the supervisor's stop reaches the program: each stop
// line it writes on the stop pipe (wire.StopLine, read by listen) stops
// the interpreter running. The command line's worker has one run, and a
// stop that comes before its first statement (the deadline passed while
// the worker was starting) stops it there: the program never begins. A
// pool worker's runs are other callers', so a stop is kept only from the
// moment a job is read (took) to its end (done), for that job: one that
// comes between two jobs is dropped, never kept for the next
// (betweenRuns).
//
// The pipe is listened to from the worker's first run on, not from its
// start: a goroutine waiting in the runtime's poller through the worker's
// start, its compile and its confinement made a confined hello 4 to 5 %
// slower (bench/README.md, "A stop without a signal"). What the pipe holds
// when the first run begins was written before it, and is that run's
// (running).
type stopper struct {
	mu    sync.Mutex
	in    *lang.Interp // the interpreter running, nil between runs
	asked bool         // a stop came before the run began
	pool  bool         // stops between jobs are dropped
	job   bool         // a pool worker's job is read and has not ended
	// deadline, when set, is when the one run is past its time, on the
	// machine's monotonic clock (wire.Request.Deadline): it is not begun
	// after it, whether or not the stop line was read by then.
	deadline int64
	// pipe is the stop pipe, nil for none; listening once the first run
	// has begun.
	pipe      *os.File
	listening bool
}

// listen reads the stop pipe until it closes (the worker is retired, or
// its supervisor gone): each stop line (wire.StopLine) asks s. Any other
// line is not the supervisor's, and ends the listening with a word on
// standard error. It runs in a goroutine of its own from the first run's
// start, parked in the runtime's poller while nothing comes (workerPipes
// makes the pipe one it polls): a worker waiting for its next job, or
// running a program, spends nothing on it.
func (s *stopper) listen(in *bufio.Reader) {
	for {
		line, err := wire.ReadLine(in, len(wire.StopLine))
		switch {
		case err == io.EOF:
			return
		case err != nil:
			fmt.Fprintln(os.Stderr, "sabline: worker: the stop pipe:", err)
			return
		case string(line) != wire.StopLine:
			fmt.Fprintf(os.Stderr, "sabline: worker: the stop pipe: %q is not a stop\n", line)
			return
		}
		s.ask()
	}
}

// held reads the n bytes the pipe holds as the first run begins, without
// waiting (each stop is there whole: the write of a line this short is
// atomic): every stop among them was written before the run, and is kept
// for it (a pool's first job is read by then: took). It reports false,
// having said so on standard error, when they are not all stop lines,
// which ends the listening, as in listen. It runs under s.mu.
func (s *stopper) held(in *bufio.Reader, n int) bool {
	for ; n > 0; n -= len(wire.StopLine) {
		b, err := in.Peek(min(n, len(wire.StopLine)))
		if err != nil || string(b) != wire.StopLine {
			fmt.Fprintf(os.Stderr, "sabline: worker: the stop pipe: %q is not a stop\n", b)
			return false
		}
		_, _ = in.Discard(len(b))
		s.asked = true
	}
	return true
}

// ask stops the interpreter running, or, in the command line's worker,
// the one run when it begins.
func (s *stopper) ask() {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.in != nil:
		s.in.Stop(timeoutStop)
	case !s.pool || s.job:
		s.asked = true
	}
}

// took marks a pool worker's job read: a stop from now on is kept for it,
// through its compile and loads, until done.
func (s *stopper) took() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.job, s.asked = true, false
}

// done marks a pool worker's job ended: a stop from now on is dropped.
func (s *stopper) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.job, s.asked = false, false
}

// until sets the one run's deadline (wire.MonotonicNow's clock).
func (s *stopper) until(deadline int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deadline = deadline
}

// past reports whether the one run's deadline has passed.
func (s *stopper) past() bool {
	if s.deadline == 0 {
		return false
	}
	now, ok := wire.MonotonicNow()
	return ok && now >= s.deadline
}

// betweenRuns makes s a pool worker's: an ask that comes while no run
// runs is dropped, and one that came before is forgotten.
func (s *stopper) betweenRuns() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pool, s.asked = true, false
}

// running is job.Hooks.Running: in runs until the returned func is
// called, and is stopped before its first statement when an ask was kept
// for it. At the first run it begins listening: a stop the pipe holds
// unread then (unread) was written before, and is kept for this run.
func (s *stopper) running(in *lang.Interp) (ended func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.in = in
	if s.pipe != nil && !s.listening {
		s.listening = true
		in := bufio.NewReaderSize(s.pipe, 16)
		if s.held(in, unread(s.pipe)) {
			go s.listen(in)
		}
	}
	if s.asked || s.past() {
		in.Stop(timeoutStop)
	}
	return func() {
		s.mu.Lock()
		s.in = nil
		s.mu.Unlock()
	}
}
