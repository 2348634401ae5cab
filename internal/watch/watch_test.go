package watch

import (
	"sync/atomic"
	"testing"
	"time"
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

// TestWatchWakes: jobs that follow one another within a period wake the
// watch's goroutine once, at the first; a job after the watch parked
// wakes it again (the control).
func TestWatchWakes(t *testing.T) {
	tests := []struct {
		name      string
		period    time.Duration
		jobs      int  // before the last
		park      bool // wait for the watch to park before the last job
		wantWakes int
	}{
		{name: "a hundred jobs within a period", period: time.Hour, jobs: 100, wantWakes: 1},
		{name: "a job after the watch parked", period: time.Millisecond, jobs: 1, park: true,
			wantWakes: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := New(tt.period, func() func() { return nil })
			defer w.Close()
			for range tt.jobs {
				w.Begin()
				w.End()
			}
			if tt.park {
				waitParked(t, w)
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

// waitParked waits for w's goroutine to park, as long as that takes on a
// loaded machine, and fails t after a minute.
func waitParked(t *testing.T, w *Watch) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		w.mu.Lock()
		parked := w.parked
		w.mu.Unlock()
		if parked {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the watch did not park in a minute without jobs")
		}
	}
}
