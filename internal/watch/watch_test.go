package watch

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestWatchReportsOnlyItsJob: what a check finds is reported while the
// job it was measured in runs (the control), and never once that job has
// ended, though another began meanwhile.
func TestWatchReportsOnlyItsJob(t *testing.T) {
	tests := []struct {
		name       string
		endFirst   bool // the job ends while its check measures
		wantReport bool
	}{
		{name: "the job still runs", wantReport: true},
		{name: "the job ended, another began", endFirst: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			measuring, found := make(chan struct{}), make(chan struct{})
			reported := make(chan struct{}, 1)
			var checks atomic.Int32
			w := New(time.Millisecond, func() func() {
				if checks.Add(1) > 1 {
					return nil
				}
				close(measuring)
				<-found
				return func() { reported <- struct{}{} }
			})
			defer w.Close()
			w.Begin()
			<-measuring
			if tt.endFirst {
				w.End()
				w.Begin()
			}
			close(found)
			// The report, if any, is made before the next check: wait
			// for that one, not for a time.
			for checks.Load() < 2 {
				time.Sleep(time.Millisecond)
			}
			w.End()
			select {
			case <-reported:
				if !tt.wantReport {
					t.Error("a check of an ended job was reported")
				}
			default:
				if tt.wantReport {
					t.Error("a check of the running job was not reported")
				}
			}
		})
	}
}

// TestWatchIdle: a watch checks while a job runs; once the job has
// ended at most one check more comes, and the watch parks at the next
// tick that finds no job begun since the one before.
func TestWatchIdle(t *testing.T) {
	var checks atomic.Int32
	w := New(time.Millisecond, func() func() {
		checks.Add(1)
		return nil
	})
	defer w.Close()
	w.Begin()
	for checks.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	w.End()
	ended := checks.Load()
	waitParked(t, w)
	if n := checks.Load() - ended; n > 1 {
		t.Errorf("%d checks after the job ended, want at most 1", n)
	}
}

// TestWatchWakes: jobs that follow one another while the watch ticks
// wake its goroutine once, at the first; a job after the watch parked
// wakes it again (the control).
func TestWatchWakes(t *testing.T) {
	tests := []struct {
		name      string
		period    time.Duration
		park      bool // wait for the watch to park before the last job
		wantWakes int
	}{
		{name: "a hundred jobs while it ticks", period: time.Hour, wantWakes: 1},
		{name: "a job after the watch parked", period: time.Millisecond, park: true, wantWakes: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New(tt.period, func() func() { return nil })
			defer w.Close()
			w.Begin()
			waitFor(t, "the watch to take its wake", func() bool { return len(w.wake) == 0 })
			w.End()
			if tt.park {
				waitParked(t, w)
			} else {
				for range 100 {
					w.Begin()
					w.End()
				}
			}
			w.Begin()
			w.End()
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.wakes != tt.wantWakes {
				t.Errorf("the watch was woken %d times, want %d", w.wakes, tt.wantWakes)
			}
		})
	}
}

// TestWatchChecksAfterIdle: a job that begins after the watch parked is
// checked, as the first was.
func TestWatchChecksAfterIdle(t *testing.T) {
	var checks atomic.Int32
	w := New(time.Millisecond, func() func() {
		checks.Add(1)
		return nil
	})
	defer w.Close()
	for job := range 2 {
		w.Begin()
		waitFor(t, fmt.Sprintf("a check of job %d", job+1), func() bool { return checks.Load() > 0 })
		w.End()
		waitParked(t, w)
		checks.Store(0)
	}
}

// TestWatchTick: at a tick, a job running is checked; with none running,
// the watch goes on ticking if one began since the tick before, and
// parks if none did.
func TestWatchTick(t *testing.T) {
	tests := []struct {
		name       string
		running    bool // a job runs at the tick
		begunSince bool // a job began since the tick before
		wantJob    bool
		wantPark   bool
	}{
		{name: "a job runs", running: true, begunSince: true, wantJob: true},
		{name: "a job runs, begun before the last tick", running: true, wantJob: true},
		{name: "no job runs, one began since the last tick", begunSince: true},
		{name: "no job runs, none began since the last tick", wantPark: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Watch{last: 7}
			seen := uint64(7)
			if tt.begunSince {
				seen = 6
			}
			if tt.running {
				w.job = 7
			}
			job, park := w.tick(&seen)
			if (job != 0) != tt.wantJob || park != tt.wantPark || w.parked != tt.wantPark {
				t.Errorf("tick: job %d, park %v, parked %v; want a job %v, park %v",
					job, park, w.parked, tt.wantJob, tt.wantPark)
			}
			if !park && seen != w.last {
				t.Errorf("tick went on with seen %d: want the last job, %d", seen, w.last)
			}
		})
	}
}

// waitFor waits for what cond reports, and fails t, naming what, after
// a minute scaled to the machine's load (testkit.Bound).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	bound := testkit.Bound(time.Minute)
	for deadline := time.Now().Add(bound); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", bound, what)
		}
	}
}

// waitParked waits for w's goroutine to park (waitFor).
func waitParked(t *testing.T, w *Watch) {
	t.Helper()
	waitFor(t, "the watch to park", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.parked
	})
}
