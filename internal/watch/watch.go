// Package watch runs a check periodically while a job runs, and only then:
// the worker's memory watch and the supervisor's watch of a run's
// temporary directory are each a [Watch]. An idle worker's watch is
// parked, so that a worker waiting for its next job costs no tick.
package watch

import (
	"sync"
	"time"
)

// Watch runs a check every period while a job runs, and only then: one
// goroutine for the life of its owner, parked while no job runs, so that
// starting and ending a job costs no goroutine and no wait, and an idle
// worker no tick (after at most one past its job's end). A check measures
// without the watch's lock; what it found is reported under the lock, and
// only if the job it was measured in is still the one running: once End
// returns, nothing measured before it is reported.
type Watch struct {
	mu   sync.Mutex
	job  uint64 // the running job's number; 0 when none runs
	last uint64 // the last job's number
	wake chan struct{}
	quit chan struct{}
}

// New starts a watch of check, every period while a job runs. check
// returns what to do about what it measured (nil when all is well), which
// is done under the watch's lock while its job still runs.
func New(period time.Duration, check func() (report func())) *Watch {
	w := &Watch{wake: make(chan struct{}, 1), quit: make(chan struct{})}
	go w.loop(period, check)
	return w
}

// Begin starts a job: the check runs every period until End. A nil
// watch watches nothing.
func (w *Watch) Begin() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.last++
	w.job = w.last
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// End ends the job: once it returns, nothing measured in it is reported.
func (w *Watch) End() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.job = 0
	w.mu.Unlock()
}

// Close ends the watch's goroutine.
func (w *Watch) Close() {
	if w != nil {
		close(w.quit)
	}
}

func (w *Watch) running() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.job
}

func (w *Watch) loop(period time.Duration, check func() func()) {
	for {
		select {
		case <-w.wake:
		case <-w.quit:
			return
		}
		tick := time.NewTicker(period)
		for job := w.running(); job != 0; job = w.running() {
			select {
			case <-tick.C:
			case <-w.quit:
				tick.Stop()
				return
			}
			report := check()
			if report == nil {
				continue
			}
			w.mu.Lock()
			if w.job == job {
				report()
			}
			w.mu.Unlock()
		}
		tick.Stop()
	}
}
