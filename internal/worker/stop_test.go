package worker

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/job"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/lang"
)

// TestStopperBeforeTheFirstStatement: the command line's worker keeps an
// ask, or a deadline passed, that comes before its run begins, and the
// program is stopped at its first statement (E307, nothing printed); a
// pool worker drops an ask made between its runs, and the next run runs;
// with no ask and a deadline far off, or neither ask nor deadline, the program
// runs (the controls).
func TestStopperBeforeTheFirstStatement(t *testing.T) {
	if _, ok := wire.MonotonicNow(); !ok {
		t.Skip("this system has no monotonic clock a worker shares (nor a stop signal)")
	}
	tests := []struct {
		name     string
		stopper  func() *stopper
		wantCode codes.Code
		wantOut  string
	}{
		{name: "asked before the run", wantCode: codes.E307,
			stopper: func() *stopper { s := &stopper{}; s.ask(); return s }},
		{name: "its deadline passed before the run", wantCode: codes.E307,
			stopper: func() *stopper { s := &stopper{}; s.until(monotonic(t)); return s }},
		{name: "the control: its deadline far off", wantOut: "ran\n",
			stopper: func() *stopper { s := &stopper{}; s.until(monotonic(t) + int64(time.Hour)); return s }},
		{name: "a pool worker asked between runs", wantOut: "ran\n",
			stopper: func() *stopper { s := &stopper{}; s.betweenRuns(); s.ask(); return s }},
		{name: "a pool worker asked before it began serving", wantOut: "ran\n",
			stopper: func() *stopper { s := &stopper{}; s.ask(); s.betweenRuns(); return s }},
		{name: "neither an ask nor a deadline", wantOut: "ran\n",
			stopper: func() *stopper { return &stopper{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			cfg := lang.Config{Budget: budget.MustParse(dir, "io"), Cwd: dir, Stdout: &out}
			p := job.Program{Path: filepath.Join(dir, "main.vel"), Source: []byte(`print("ran")`), Root: dir}
			_, err := job.Run(cfg, p, job.Hooks{Running: tt.stopper().running})
			if codes.CodeOf(err) != tt.wantCode || out.String() != tt.wantOut {
				t.Errorf("ended %v (%s), printed %q; want %q and %q", err, codes.CodeOf(err),
					out.String(), tt.wantCode, tt.wantOut)
			}
		})
	}
}

// monotonic is wire.MonotonicNow, which the test's system has.
func monotonic(t *testing.T) int64 {
	now, ok := wire.MonotonicNow()
	if !ok {
		t.Fatal("no monotonic clock")
	}
	return now
}
