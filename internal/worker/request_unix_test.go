//go:build unix

package worker

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
)

// TestRequestRead: a worker, in a process of its own, sent a request it
// cannot read ends with a record that says so (E310, crashed) and runs
// nothing; the control, a request as the supervisor writes it (not
// confined, a program that prints), runs and ends ok.
func TestRequestRead(t *testing.T) {
	if asWorker(t) {
		return
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.vel")
	testkit.WriteFile(t, prog, "print('ran')\n")
	good, err := json.Marshal(wire.Request{
		Program: prog, Budget: budget.MustParse("/", "io"), Cwd: dir,
		Confine: core.ModeOff, TempDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		line        string
		wantStatus  string
		wantCode    codes.Code
		wantMessage string
		wantRan     bool
		keepOpen    bool // the request pipe held open until the worker has ended
	}{
		{name: "as the supervisor writes it", line: string(good) + "\n",
			wantStatus: receipt.StatusOK, wantRan: true},
		{name: "a field no request has", line: `{"program":"` + prog + `","run_as":"root"}` + "\n",
			wantStatus: receipt.StatusCrashed, wantCode: codes.E310,
			wantMessage: `no field "run_as"`},
		{name: "past its bound", line: pastBound(wire.MaxRequestBytes), keepOpen: true,
			wantStatus: receipt.StatusCrashed, wantCode: codes.E310,
			wantMessage: "read request: a record past its bound"},
		{name: "cut short", line: string(good[:len(good)/2]),
			wantStatus: receipt.StatusCrashed, wantCode: codes.E310,
			wantMessage: "read request: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, out := runWorker(t, tt.line, "", tt.keepOpen)
			res, final, _, bad := wire.ReadResults(raw)
			o := res.Outcome
			if bad != nil || !final || o.Status != tt.wantStatus || o.Code != tt.wantCode ||
				!strings.Contains(o.Message, tt.wantMessage) {
				t.Fatalf("the worker's record: %+v (final %v, %v), want %s %s %q",
					o, final, bad, tt.wantStatus, tt.wantCode, tt.wantMessage)
			}
			if ran := strings.Contains(out, "ran\n"); ran != tt.wantRan {
				t.Errorf("the program ran: %v, want %v\n%s", ran, tt.wantRan, out)
			}
		})
	}
}

// TestJobRead: a pool worker, in a process of its own, runs the jobs it
// is sent as the pool writes them and answers each with its result (the
// program's output in it); a job line past its bound, cut short by the
// pipe's end, or one it cannot read ends the worker, crashed, with a
// message that says so, and the jobs after it are not run. The request
// pipe is held open past the bound, so that only the bound ends the read.
func TestJobRead(t *testing.T) {
	if asWorker(t) {
		return
	}
	dir := t.TempDir()
	req, err := json.Marshal(wire.Request{Pool: true, Cwd: dir, Confine: core.ModeOff,
		TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	job := string(wire.AppendJob(nil, &wire.Job{Program: filepath.Join(dir, "p.vel"),
		Source: []byte("print('ran')\n"), Root: dir, Budget: budget.MustParse("/", "io"), Cwd: dir}))
	crashed := fmt.Sprintf("the worker's exit status: %d\n", codes.ExitCrashed)
	tests := []struct {
		name        string
		jobs        string
		keepOpen    bool
		wantOut     []string // in the worker's output
		wantResults int      // results after its first record
	}{
		{name: "two jobs, then the pipe's end: retired", jobs: job + job, wantResults: 2,
			wantOut: []string{"the worker's exit status: 0\n"}},
		{name: "past its bound", jobs: pastBound(wire.MaxJobBytes), keepOpen: true,
			wantOut: []string{"read job: a record past its bound: more than", crashed}},
		{name: "cut short", jobs: job[:len(job)/2],
			wantOut: []string{"read job: a job cut short", crashed}},
		{name: "one it cannot read, between two",
			jobs:    job + strings.Replace(job, `"cwd"`, `"CWD"`, 1) + job,
			wantOut: []string{`read job: decode job: at byte`, crashed}, wantResults: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, out := runWorker(t, string(req)+"\n"+tt.jobs, "", tt.keepOpen)
			for _, want := range tt.wantOut {
				if !strings.Contains(out, want) {
					t.Errorf("the worker's output, want %q in it:\n%s", want, out)
				}
			}
			lines := strings.SplitAfter(string(raw), "\n")
			if len(lines) != 2+tt.wantResults {
				t.Fatalf("the worker wrote %d lines, want its first record and %d results:\n%.300s",
					len(lines)-1, tt.wantResults, raw)
			}
			if first, final, _, err := wire.ReadResults([]byte(lines[0])); err != nil || final {
				t.Errorf("the pool worker's first record: %+v, final %v, %v", first, final, err)
			}
			for _, l := range lines[1 : len(lines)-1] {
				r, err := wire.ParseJobResult([]byte(l))
				if err != nil || r.Outcome.Status != receipt.StatusOK || string(r.Stdout) != "ran\n" {
					t.Errorf("a result: %+v, %v; want ok, the program's output, \"ran\"", r, err)
				}
			}
		})
	}
}

// TestStopRead: a worker, in a process of its own, finds the stops the
// supervisor wrote on its stop pipe before it started. The command line's
// worker stops its run with it before the program's first statement
// (timed out, nothing printed); a pool worker drops it, as written before
// it was ready for jobs, and runs both its jobs; a line that is not a
// stop asks nothing (the worker says so) and the program runs, as it
// does with no stop (the control).
func TestStopRead(t *testing.T) {
	if asWorker(t) {
		return
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.vel")
	testkit.WriteFile(t, prog, "print('ran')\n")
	request := func(prog string) string {
		b, err := json.Marshal(wire.Request{Program: prog, Budget: budget.MustParse("/", "io"),
			Cwd: dir, Confine: core.ModeOff, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	pool, err := json.Marshal(wire.Request{Pool: true, Cwd: dir, Confine: core.ModeOff,
		TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	job := string(wire.AppendJob(nil, &wire.Job{Program: prog, Budget: budget.MustParse("/", "io"),
		Cwd: dir, Root: dir}))
	tests := []struct {
		name        string
		in, stops   string
		wantOutcome []string // each result's status and position, in order
		wantOut     string   // in the worker's output
		linux       bool     // the stop must be read before the run (wire.Unread)
	}{
		{name: "a stop before the run", in: request(prog), stops: wire.StopLine, linux: true,
			wantOutcome: []string{"timeout " + prog + ":"}},
		{name: "a line not a stop", in: request(prog), stops: "halt\n",
			wantOutcome: []string{"ok "}, wantOut: `"halt\n" is not a stop`},
		{name: "the control: no stop", in: request(prog), wantOutcome: []string{"ok "}},
		{name: "a pool worker, a stop before its jobs", in: string(pool) + "\n" + job + job,
			stops: wire.StopLine, linux: true, wantOutcome: []string{"ok ", "ok "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.linux && goruntime.GOOS != "linux" {
				t.Skip("only a Linux worker looks into its stop pipe as its run begins")
			}
			raw, out := runWorker(t, tt.in, tt.stops, false)
			lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
			var got []string
			ran := 0
			for i, l := range lines {
				var o receipt.Outcome
				var stdout []byte
				if len(tt.wantOutcome) > 1 { // a pool's: its first record, then a result a job
					if i == 0 {
						continue
					}
					r, err := wire.ParseJobResult([]byte(l))
					if err != nil {
						t.Fatalf("a result: %v\n%s", err, l)
					}
					o, stdout = r.Outcome, r.Stdout
				} else if i == len(lines)-1 {
					res, final, _, err := wire.ReadResults(raw)
					if err != nil || !final {
						t.Fatalf("the final record: final %v, %v\n%s", final, err, raw)
					}
					o = res.Outcome
				}
				if o.Status != "" { // a position's line and column left out
					got = append(got, o.Status+" "+strings.TrimRight(o.Position, "0123456789:")+
						map[bool]string{true: ":"}[o.Position != ""])
				}
				if string(stdout) == "ran\n" {
					ran++
				}
			}
			ran += strings.Count(out, "ran\n")
			if strings.Join(got, ", ") != strings.Join(tt.wantOutcome, ", ") ||
				!strings.Contains(out, tt.wantOut) {
				t.Fatalf("outcomes %q, want %q; the worker's output, want %q in it:\n%s", got,
					tt.wantOutcome, tt.wantOut, out)
			}
			if wantRan := strings.Count(strings.Join(tt.wantOutcome, ","), "ok"); ran != wantRan {
				t.Errorf("the program ran %d times, want %d\n%s", ran, wantRan, out)
			}
		})
	}
}

// asWorker runs Main on the pipes runWorker passes, and reports true,
// when the test binary is the worker runWorker started.
func asWorker(t *testing.T) bool {
	if os.Getenv(testkit.OwnProcessEnv) != "worker" {
		return false
	}
	t.Logf("the worker's exit status: %d", Main([]string{"3", "4", "5"}))
	return true
}

// pastBound is a line past bound by more than a reader's buffer, without
// its end: read through a buffer, a line is measured each time the
// buffer fills.
func pastBound(bound int) string {
	return strings.Repeat("x", bound+1<<17)
}

// runWorker runs Main in a process of its own, in written on its request
// pipe (closed after it, or held open until the worker has ended) and
// stops on its stop pipe before it starts (the pipe held open until it has
// ended), and returns what it wrote on its result pipe and on its output.
func runWorker(t *testing.T, in, stops string, keepOpen bool) (raw []byte, out string) {
	t.Helper()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stopR, stopW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // also when Rerun ends the test early
		for _, f := range []*os.File{reqR, reqW, resR, resW, stopR, stopW} {
			f.Close()
		}
	})
	if _, err := io.WriteString(stopW, stops); err != nil {
		t.Fatal(err)
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		io.WriteString(reqW, in) // fails once the worker has ended, past a bound
		if !keepOpen {
			reqW.Close()
		}
	}()
	var result []byte
	read := make(chan error, 1)
	go func() {
		var err error
		result, err = io.ReadAll(io.LimitReader(resR, wire.MaxResultBytes))
		read <- err
	}()
	cmd := testkit.Rerun(t, "worker", func(c *exec.Cmd) {
		c.ExtraFiles = []*os.File{reqR, resW, stopR}
	})
	reqR.Close()
	resW.Close()
	stopR.Close()
	<-written
	reqW.Close()
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	return result, cmd.Stdout.(interface{ String() string }).String()
}

// TestWriteAfterFinal: once the final line is written, the result pipe
// is closed and nothing more is written on it, final or not.
func TestWriteAfterFinal(t *testing.T) {
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := &worker{out: pw}
	for _, tc := range []struct {
		line  string
		final bool
	}{{"first\n", true}, {"second\n", false}, {"third\n", true}} {
		if err := w.write([]byte(tc.line), nil, tc.final); err != nil {
			t.Errorf("write %q: %v", tc.line, err)
		}
	}
	got, err := io.ReadAll(r) // ends only once the pipe is closed
	if err != nil || string(got) != "first\n" {
		t.Errorf("the result pipe read %q, %v; want the final line alone", got, err)
	}
}
