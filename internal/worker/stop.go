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
// comes between two jobs is dropped, never kept for the next. That no
// stop reaches another job than the one it was written for rests on this
// and on the supervisor, which writes a stop only while it awaits a job,
// and ends a pool worker once it has answered one.
//
// The command line's worker listens from its run's start (running), not
// from its own: a goroutine waiting in the runtime's poller through the
// worker's start, its compile and its confinement made a confined hello
// 4 to 5 % slower (bench/README.md, "A stop without a signal"). The
// stops the pipe holds as the run begins were written before it, and are
// read then, without waiting (held). That look into the pipe is Linux's
// (FIONREAD, wire.Unread); elsewhere such a stop is read once the program has
// begun, and ends it at its next step (on macOS the run's deadline still
// keeps a program past it from beginning; Windows has none). A pool
// worker listens from the moment it is ready for jobs (hear).
type stopper struct {
	mu    sync.Mutex
	in    *lang.Interp // the interpreter running, nil between runs
	asked bool         // a stop came before the run began
	// between: a pool worker between two jobs (done), whose stops are
	// dropped; false for the command line's worker and a pool's job read.
	between bool
	// deadline, when set, is when the one run is past its time, on the
	// machine's monotonic clock (wire.Request.Deadline): it is not begun
	// after it, whether or not the stop line was read by then.
	deadline int64
	// pipe is the stop pipe, nil for none; listening once it is read
	// (hear).
	pipe      *os.File
	listening bool
}

// listen reads the stop pipe until it closes (the worker is retired, or
// its supervisor gone): each stop line (wire.StopLine) asks s. Any other
// line is not the supervisor's, and ends the listening with a word on
// standard error. It runs in a goroutine of its own (hear), parked in the
// runtime's poller while nothing comes (workerPipes makes the pipe one it
// polls on Linux): a worker waiting for its next job, or running a
// program, spends nothing on it.
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

// hear begins the listening, once: first the stops the pipe holds by now
// (held), then listen's goroutine. A pool worker calls it once it is
// ready for jobs; the command line's worker's run, as it begins
// (running).
func (s *stopper) hear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hearLocked()
}

func (s *stopper) hearLocked() {
	if s.pipe == nil || s.listening {
		return
	}
	s.listening = true
	in := bufio.NewReaderSize(s.pipe, 16)
	if s.held(in, wire.Unread(s.pipe)) {
		go s.listen(in)
	}
}

// held reads the n bytes the pipe holds, without waiting (each stop is
// there whole: the write of a line this short is atomic), and asks s for
// each stop among them. It reports false, having said so on standard
// error, when they are not all stop lines, which ends the listening, as
// in listen. It runs under s.mu.
func (s *stopper) held(in *bufio.Reader, n int) bool {
	for ; n > 0; n -= len(wire.StopLine) {
		b, err := in.Peek(min(n, len(wire.StopLine)))
		if err != nil || string(b) != wire.StopLine {
			fmt.Fprintf(os.Stderr, "sabline: worker: the stop pipe: %q is not a stop\n", b)
			return false
		}
		_, _ = in.Discard(len(b))
		s.askLocked()
	}
	return true
}

// ask stops the interpreter running, or keeps the stop for the run to
// begin: the command line's, or a pool's job once it is read.
func (s *stopper) ask() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.askLocked()
}

func (s *stopper) askLocked() {
	switch {
	case s.in != nil:
		s.in.Stop(timeoutStop)
	case !s.between:
		s.asked = true
	}
}

// took marks a pool worker's job read: a stop from now on is kept for it,
// through its compile and loads, until done.
func (s *stopper) took() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.between, s.asked = false, false
}

// done marks a pool worker between jobs, its last ended or none begun
// yet: a stop from now on is dropped, and one kept before is forgotten.
func (s *stopper) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.between, s.asked = true, false
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

// running is job.Hooks.Running: in runs until the returned func is
// called, and is stopped before its first statement when an ask was kept
// for it. The command line's worker begins listening here (hear): a stop
// the pipe holds unread now was written before, and is kept for the run.
func (s *stopper) running(in *lang.Interp) (ended func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.in = in
	s.hearLocked()
	if s.asked || s.past() {
		in.Stop(timeoutStop)
	}
	return func() {
		s.mu.Lock()
		s.in = nil
		s.mu.Unlock()
	}
}
