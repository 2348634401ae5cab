// Package watch runs a check periodically while a job runs, and only then:
// the worker's memory watch and the supervisor's watch of a worker's
// bounds (its temporary directory, its memory) are each a [Watch]. An
// idle worker's watch parks within two ticks of its last job's end, so
// that a worker waiting for its next job costs no tick from then on.
package watch

import (
	"sync"
	"time"
)

// Watch runs a check every period while a job runs, and only then: one
// goroutine for the life of its owner, ticking while jobs come and
// parked at the first tick that finds no job running and none begun
// since the tick before. Starting and ending a job costs no goroutine and
// no wait; jobs that follow one another within a period wake nothing (a
// wake for each would cost a thread's wake-up, dearer than a short job:
// a third of a pool's context switches); an idle worker ticks at most
// twice after its last job's end, and checks nothing then. A check
// measures without the watch's lock; what it found is reported under the
// lock, and only if the job it was measured in is still the one running:
// once End returns, nothing measured before it is reported.
type Watch struct {
	mu     sync.Mutex
	job    uint64 // the running job's number; 0 when none runs
	last   uint64 // the last job's number
	parked bool   // the goroutine waits for wake: the next Begin sends it
	wakes  int    // the times Begin sent wake (for tests)
	wake   chan struct{}
	quit   chan struct{}
}

// New starts a watch of check, every period while a job runs. check
// returns what to do about what it measured (nil when all is well), which
// is done under the watch's lock while its job still runs.
func New(period time.Duration, check func() (report func())) *Watch {
	w := &Watch{parked: true, wake: make(chan struct{}, 1), quit: make(chan struct{})}
	go w.loop(period, check)
	return w
}

// Begin starts a job: the check runs every period until End. It wakes
// the watch's goroutine only when that is parked. A nil watch watches
// nothing.
func (w *Watch) Begin() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last++
	w.job = w.last
	if w.parked {
		w.parked = false
		w.wakes++
		// Never blocks: a wake is sent only to a goroutine that parked
		// after taking the one before (after Close, one stays unread,
		// and parked stays false).
		w.wake <- struct{}{}
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

// tick is what the goroutine does at a tick: it parks (true) when no job
// runs and none began since the tick before (the job then numbered
// seen); else it returns the job to check (0 for none).
func (w *Watch) tick(seen *uint64) (job uint64, park bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.job == 0 && w.last == *seen {
		w.parked = true
		return 0, true
	}
	*seen = w.last
	return w.job, false
}

func (w *Watch) loop(period time.Duration, check func() func()) {
	for {
		select {
		case <-w.wake:
		case <-w.quit:
			return
		}
		tick := time.NewTicker(period)
		seen := uint64(0) // no job seen yet: the first tick checks or goes on
		for {
			select {
			case <-tick.C:
			case <-w.quit:
				tick.Stop()
				return
			}
			job, park := w.tick(&seen)
			if park {
				break
			}
			if job == 0 {
				continue
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
