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
	for checks.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	w.End()
	ended := checks.Load()
	time.Sleep(50 * time.Millisecond) // fifty periods without a job
	if n := checks.Load() - ended; n > 1 {
		t.Errorf("%d checks after the job ended, want at most 1", n)
	}
}
