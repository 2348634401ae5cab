package watch

import (
	"runtime"
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
			waitFor(t, func() bool { return checks.Load() >= 2 })
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

// TestWatchIdle: a watch checks while a job runs, and once the job has
// ended at most one check more comes, then none.
func TestWatchIdle(t *testing.T) {
	var checks atomic.Int32
	w := New(time.Millisecond, func() func() {
		checks.Add(1)
		return nil
	})
	defer w.Close()
	w.Begin()
	waitFor(t, func() bool { return checks.Load() >= 3 })
	w.End()
	ended := checks.Load()
	time.Sleep(50 * time.Millisecond) // fifty periods without a job
	if n := checks.Load() - ended; n > 1 {
		t.Errorf("%d checks after the job ended, want at most 1", n)
	}
}

// TestWatchShortJob: a job that ends before the period is checked no
// time (no goroutine is woken for it); the control, a job that outlasts
// a few periods, is checked.
func TestWatchShortJob(t *testing.T) {
	for _, tt := range []struct {
		name       string
		period     time.Duration
		wantChecks bool
	}{
		{name: "shorter than the period", period: time.Hour, wantChecks: false},
		{name: "control: longer than the period", period: time.Millisecond, wantChecks: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var checks atomic.Int32
			goroutines := runtime.NumGoroutine()
			w := New(tt.period, func() func() {
				checks.Add(1)
				return nil
			})
			defer w.Close()
			for range 1000 {
				w.Begin()
				w.End()
			}
			// Earlier tests' goroutines may still be ending: not more.
			if !tt.wantChecks && runtime.NumGoroutine() > goroutines {
				t.Errorf("%d goroutines after 1,000 jobs, %d before the watch: want no goroutine of its own",
					runtime.NumGoroutine(), goroutines)
			}
			w.Begin()
			if tt.wantChecks {
				waitFor(t, func() bool { return checks.Load() >= 3 })
			}
			w.End()
			if got := checks.Load() > 0; got != tt.wantChecks {
				t.Errorf("checked %d times, want checks %v", checks.Load(), tt.wantChecks)
			}
		})
	}
}

// TestWatchChecksDoNotOverlap: a check that takes many periods is never
// run beside another, though jobs end and begin meanwhile; and a job that
// begins while a check measures is checked after it.
func TestWatchChecksDoNotOverlap(t *testing.T) {
	var in, most, checks atomic.Int32
	w := New(time.Millisecond, func() func() {
		n := in.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		in.Add(-1)
		checks.Add(1)
		return nil
	})
	defer w.Close()
	w.Begin()
	waitFor(t, func() bool {
		w.End()
		w.Begin()
		return checks.Load() >= 5
	})
	w.End()
	if m := most.Load(); m != 1 {
		t.Errorf("at most %d checks at once, want 1", m)
	}
}

// waitFor waits until done reports true, failing the test if it has not
// within ten seconds.
func waitFor(t *testing.T, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !done(); time.Sleep(time.Millisecond / 2) {
		if time.Now().After(deadline) {
			t.Fatal("not done within ten seconds")
		}
	}
}
