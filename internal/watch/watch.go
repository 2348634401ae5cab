// Package watch runs a check periodically while a job runs, and only then:
// the worker's memory watch and the supervisor's watch of a run's
// temporary directory are each a [Watch]. Its tick is a timer armed only
// while a job runs, so that a worker waiting for its next job costs no
// tick and a job shorter than the period wakes nothing.
package watch

import (
	"sync"
	"time"
)

// Watch runs a check every period while a job runs, and only then. Its
// tick is a timer armed when a job begins and stopped when it ends, not a
// goroutine: a job shorter than the period costs no check, no goroutine
// woken and no wait, and an idle worker no tick. Checks never overlap: a
// tick that comes while one measures waits for the next period. A check
// measures without the watch's lock; what it found is reported under the
// lock, and only if the job it was measured in is still the one running:
// once End returns, nothing measured before it is reported.
type Watch struct {
	period time.Duration
	check  func() (report func())

	mu      sync.Mutex
	job     uint64      // the running job's number; 0 when none runs
	last    uint64      // the last job's number
	timer   *time.Timer // the tick, made at the first job
	ticking bool        // a check is under way: it arms the next tick
	closed  bool
}

// New makes a watch of check, every period while a job runs. check
// returns what to do about what it measured (nil when all is well), which
// is done under the watch's lock while its job still runs.
func New(period time.Duration, check func() (report func())) *Watch {
	return &Watch{period: period, check: check}
}

// Begin starts a job: the check runs every period until End. A nil
// watch watches nothing.
func (w *Watch) Begin() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last++
	w.job = w.last
	switch {
	case w.closed, w.ticking:
	case w.timer == nil:
		w.timer = time.AfterFunc(w.period, w.tick)
	default:
		w.timer.Reset(w.period)
	}
}

// End ends the job: once it returns, nothing measured in it is reported,
// and no check comes until the next job.
func (w *Watch) End() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.job = 0
	if w.timer != nil {
		w.timer.Stop()
	}
}

// Close stops the watch: no check comes after it returns but one under
// way. A nil watch, or one closed already, is left as it is.
func (w *Watch) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// tick runs the check for the job running, reports what it found if that
// job still runs, and arms the next tick while a job runs.
func (w *Watch) tick() {
	w.mu.Lock()
	job := w.job
	if job == 0 || w.closed || w.ticking {
		w.mu.Unlock()
		return
	}
	w.ticking = true
	w.mu.Unlock()
	report := w.check()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ticking = false
	if report != nil && w.job == job {
		report()
	}
	if w.job != 0 && !w.closed {
		w.timer.Reset(w.period)
	}
}
