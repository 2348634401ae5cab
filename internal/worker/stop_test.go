package worker

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/job"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/lang"
)

// TestStopperBeforeTheFirstStatement: the command line's worker keeps an
// ask, or a deadline passed, that comes before its run begins, or a stop
// its pipe holds unread as the run begins, and the program is stopped at
// its first statement (E307, nothing printed); so does a pool worker for
// an ask that comes once its job is read; it drops an ask made between
// its runs, or one its pipe held before it was ready for jobs, and the
// next run runs;
// with no ask and a deadline far off, or neither ask nor deadline, the program
// runs (the controls).
func TestStopperBeforeTheFirstStatement(t *testing.T) {
	if _, ok := wire.MonotonicNow(); !ok {
		t.Skip("this system has no monotonic clock a worker shares")
	}
	tests := []struct {
		name     string
		stopper  func() *stopper
		wantCode codes.Code
		wantOut  string
		linux    bool // it needs a look into the pipe before the run (wire.Unread)
	}{
		{name: "asked before the run", wantCode: codes.E307,
			stopper: func() *stopper { s := &stopper{}; s.ask(); return s }},
		{name: "its deadline passed before the run", wantCode: codes.E307,
			stopper: func() *stopper { s := &stopper{}; s.until(monotonic(t)); return s }},
		{name: "the control: its deadline far off", wantOut: "ran\n",
			stopper: func() *stopper { s := &stopper{}; s.until(monotonic(t) + int64(time.Hour)); return s }},
		{name: "a pool worker asked between runs", wantOut: "ran\n",
			stopper: func() *stopper { s := &stopper{}; s.done(); s.ask(); return s }},
		{name: "a pool worker asked before it began serving", wantOut: "ran\n",
			stopper: func() *stopper { s := &stopper{}; s.ask(); s.done(); return s }},
		{name: "a pool worker asked once its job was read", wantCode: codes.E307,
			stopper: func() *stopper { s := &stopper{}; s.done(); s.took(); s.ask(); return s }},
		{name: "a pool worker asked after a job ended, before the next", wantOut: "ran\n",
			stopper: func() *stopper {
				s := &stopper{}
				s.done()
				s.took()
				s.ask()
				s.done()
				s.ask()
				s.took()
				return s
			}},
		{name: "a pool worker asked once its next job was read, after one ran",
			wantCode: codes.E307, stopper: func() *stopper {
				s := &stopper{}
				s.done()
				s.took()
				runJob(t, s)
				s.done()
				s.took()
				s.ask()
				return s
			}},
		{name: "neither an ask nor a deadline", wantOut: "ran\n",
			stopper: func() *stopper { return &stopper{} }},
		{name: "a stop on its pipe before the run", wantCode: codes.E307, linux: true,
			stopper: func() *stopper { return &stopper{pipe: stopPipe(t, wire.StopLine)} }},
		{name: "a pool worker, a stop on its pipe once its job was read", wantCode: codes.E307,
			linux: true, stopper: func() *stopper {
				s := &stopper{pipe: stopPipe(t, wire.StopLine)}
				s.done()
				s.took()
				return s
			}},
		{name: "a pool worker, a stop on its pipe before it was ready for jobs", wantOut: "ran\n",
			linux: true, stopper: func() *stopper {
				s := &stopper{pipe: stopPipe(t, wire.StopLine)}
				s.done()
				s.hear()
				s.took()
				return s
			}},
		{name: "the control: its pipe empty", wantOut: "ran\n",
			stopper: func() *stopper { return &stopper{pipe: stopPipe(t, "")} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linux && goruntime.GOOS != "linux" {
				t.Skip("only a Linux worker looks into its stop pipe as its run begins")
			}
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

// runJob runs a job that prints under s, as a pool worker runs one, and
// fails unless it ran.
func runJob(t *testing.T, s *stopper) {
	t.Helper()
	dir := t.TempDir()
	var out bytes.Buffer
	cfg := lang.Config{Budget: budget.MustParse(dir, "io"), Cwd: dir, Stdout: &out}
	p := job.Program{Path: filepath.Join(dir, "main.vel"), Source: []byte(`print("ran")`),
		Root: dir}
	_, err := job.Run(cfg, p, job.Hooks{Running: s.running})
	if err != nil || out.String() != "ran\n" {
		t.Fatalf("the job before: %v, printed %q", err, out.String())
	}
}

// stopPipe is a stop pipe that holds written, its writer closed.
func stopPipe(t *testing.T, written string) *os.File {
	t.Helper()
	r, w := testkit.Pipe(t)
	defer w.Close()
	if _, err := io.WriteString(w, written); err != nil {
		t.Fatal(err)
	}
	return r
}

// monotonic is wire.MonotonicNow, which the test's system has.
func monotonic(t *testing.T) int64 {
	now, ok := wire.MonotonicNow()
	if !ok {
		t.Fatal("no monotonic clock")
	}
	return now
}

// TestStopperListens: what listen takes from the stop pipe, written and
// then closed by the test. Each stop line is an ask, kept for the command
// line's run and dropped by a pool worker's stopper; a line that is not
// a stop, or one cut short, asks nothing and ends the listening, the
// stops after it unread; the pipe's end ends it too (listen returns
// every time, or the test waits out its own bound).
func TestStopperListens(t *testing.T) {
	tests := []struct {
		name      string
		written   string
		pool      bool
		wantAsked bool
		wantLeft  string // what listen left unread in the pipe
	}{
		{name: "a stop", written: wire.StopLine, wantAsked: true},
		{name: "two stops", written: wire.StopLine + wire.StopLine, wantAsked: true},
		{name: "a stop, in a pool worker between runs", written: wire.StopLine, pool: true},
		{name: "nothing, then the pipe's end", written: ""},
		{name: "a line not a stop, then a stop", written: "halt\n" + wire.StopLine,
			wantLeft: wire.StopLine},
		{name: "a line past the stop's length", written: "stop, please\n" + wire.StopLine,
			wantLeft: wire.StopLine},
		{name: "a stop cut short", written: wire.StopLine[:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := io.WriteString(w, tt.written); err != nil {
				t.Fatal(err)
			}
			w.Close()
			s := &stopper{}
			if tt.pool {
				s.done()
			}
			// A reader that hands listen one byte a read, so that what
			// it left is what it did not take.
			s.listen(bufio.NewReaderSize(oneByte{r}, 16))
			left, _ := io.ReadAll(r)
			s.mu.Lock()
			asked := s.asked
			s.mu.Unlock()
			if asked != tt.wantAsked || string(left) != tt.wantLeft {
				t.Errorf("asked %v, left %q unread; want %v and %q", asked, left, tt.wantAsked,
					tt.wantLeft)
			}
		})
	}
}

// oneByte reads at most one byte at a time.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

// TestStopperListensOnce: a stopper begins listening once, whoever asks
// it to (hear, then each run's start). Its listener is made to end (a
// line that is not a stop), and a stop written after it is then read by
// no one: a run that begins after it runs (a second listening, or a
// second look into the pipe, would take the stop and stop the run). The
// control is the same stop with no listener begun before: it is taken
// as the run begins, and stops it.
func TestStopperListensOnce(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("only a Linux worker looks into its stop pipe as its run begins")
	}
	tests := []struct {
		name        string
		heardBefore bool
	}{
		{name: "listening already", heardBefore: true},
		{name: "the control: not yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := testkit.Pipe(t)
			s := &stopper{pipe: r}
			if tt.heardBefore {
				s.hear()
				if _, err := io.WriteString(w, "halt\n"); err != nil {
					t.Fatal(err)
				}
				// The listener has read it, and ended, once the pipe
				// holds nothing.
				for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); wire.Unread(r) > 0; {
					if time.Now().After(deadline) {
						t.Fatal("the listener did not read its pipe")
					}
					goruntime.Gosched()
				}
			}
			if _, err := io.WriteString(w, wire.StopLine); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var out bytes.Buffer
			cfg := lang.Config{Budget: budget.MustParse(dir, "io"), Cwd: dir, Stdout: &out}
			p := job.Program{Path: filepath.Join(dir, "main.vel"), Source: []byte(`print("ran")`),
				Root: dir}
			_, err := job.Run(cfg, p, job.Hooks{Running: s.running})
			if ran := out.String() == "ran\n"; ran != tt.heardBefore {
				t.Errorf("ran %v (%v), want %v", ran, err, tt.heardBefore)
			}
		})
	}
}
