package worker

import (
	"os"
	"os/signal"
	"sync"

	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/lang"
)

// timeoutStop is why a program asked to stop by the supervisor stopped.
const timeoutStop = "the run took longer than its timeout and was stopped"

// stopper is how the supervisor's deadline reaches the program: each ask
// (the stop signal, wire.StopSignal) stops the interpreter running. The
// command line's worker has one run, and an ask that comes before its
// first statement (the deadline passed while the worker was starting)
// stops it there: the program never begins. A pool worker's runs are
// other callers', so an ask that comes between two of them is dropped,
// never kept for the next (betweenRuns).
type stopper struct {
	mu    sync.Mutex
	in    *lang.Interp // the interpreter running, nil between runs
	asked bool         // an ask came before the one run began
	pool  bool         // asks between runs are dropped
	// deadline, when set, is when the one run is past its time, on the
	// machine's monotonic clock (wire.Request.Deadline): it is not begun
	// after it, whether or not the ask reached the worker, which listens
	// only from its main.
	deadline int64
}

// newStopper returns a stopper that the stop signal asks from now on
// (the earlier the better: a signal that comes before is lost). Where the
// system has no stop signal nothing asks it, and the run has no deadline
// of its own: the supervisor ends the worker at once.
func newStopper() *stopper {
	s := &stopper{}
	sig, ok := wire.StopSignal()
	if !ok {
		return s
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, sig)
	go func() {
		for range c {
			s.ask()
		}
	}()
	return s
}

// ask stops the interpreter running, or, in the command line's worker,
// the one run when it begins.
func (s *stopper) ask() {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.in != nil:
		s.in.Stop(timeoutStop)
	case !s.pool:
		s.asked = true
	}
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
// for it.
func (s *stopper) running(in *lang.Interp) (ended func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.in = in
	if s.asked || s.past() {
		in.Stop(timeoutStop)
	}
	return func() {
		s.mu.Lock()
		s.in = nil
		s.mu.Unlock()
	}
}
