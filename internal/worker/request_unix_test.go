//go:build unix

package worker

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	if os.Getenv(testkit.OwnProcessEnv) == "worker" {
		t.Logf("the worker's exit status: %d", Main([]string{"3", "4"}))
		return
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.vel")
	if err := os.WriteFile(prog, []byte("print('ran')\n"), 0o600); err != nil {
		t.Fatal(err)
	}
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
	}{
		{name: "as the supervisor writes it", line: string(good) + "\n",
			wantStatus: receipt.StatusOK, wantRan: true},
		{name: "a field no request has", line: `{"program":"` + prog + `","run_as":"root"}` + "\n",
			wantStatus: receipt.StatusCrashed, wantCode: codes.E310,
			wantMessage: `no field "run_as"`},
		{name: "cut short", line: string(good[:len(good)/2]),
			wantStatus: receipt.StatusCrashed, wantCode: codes.E310,
			wantMessage: "read request: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, out := runWorker(t, tt.line)
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

// TestJobRead: a pool worker, in a process of its own, runs a job as the
// pool writes it and answers with its result (the program's output in
// it); a job line it cannot read ends the worker, crashed, with a message
// that names it, and nothing run.
func TestJobRead(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) == "worker" {
		t.Logf("the worker's exit status: %d", Main([]string{"3", "4"}))
		return
	}
	dir := t.TempDir()
	req, err := json.Marshal(wire.Request{Pool: true, Cwd: dir, Confine: core.ModeOff,
		TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	job := wire.AppendJob(nil, &wire.Job{Program: filepath.Join(dir, "p.vel"),
		Source: []byte("print('ran', ARGS[0])\n"), Root: dir, Args: []string{"first"},
		Budget: budget.MustParse("/", "io"), Cwd: dir})
	second := strings.Replace(string(job), "first", "second", 1)
	bad := strings.Replace(string(job), `"cwd"`, `"CWD"`, 1)
	raw, out := runWorker(t, string(req)+"\n"+string(job)+bad+second)
	lines := strings.SplitAfter(string(raw), "\n")
	if len(lines) != 3 || lines[2] != "" {
		t.Fatalf("the worker wrote %q, want its first record and one result", raw)
	}
	if first, final, _, err := wire.ReadResults([]byte(lines[0])); err != nil || final {
		t.Fatalf("the pool worker's first record: %+v, final %v, %v", first, final, err)
	}
	r, err := wire.ParseJobResult([]byte(lines[1]))
	if err != nil || r.Outcome.Status != receipt.StatusOK || string(r.Stdout) != "ran first\n" {
		t.Fatalf("the first job's result: %+v (%q), %v; want ok, \"ran first\"", r, r.Stdout, err)
	}
	if !strings.Contains(out, `pool worker: read job: decode job: at byte`) ||
		!strings.Contains(out, `no field "CWD"`) || strings.Contains(out, "second") {
		t.Errorf("the worker's output, want the job it could not read named and the next "+
			"not run:\n%s", out)
	}
}

// runWorker runs Main in a process of its own, given in on its request
// pipe, and returns what it wrote on its result pipe and on its output.
func runWorker(t *testing.T, in string) (raw []byte, out string) {
	t.Helper()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer resR.Close()
	if _, err := io.WriteString(reqW, in); err != nil {
		t.Fatal(err)
	}
	reqW.Close()
	cmd := testkit.Rerun(t, "worker", func(c *exec.Cmd) {
		c.ExtraFiles = []*os.File{reqR, resW}
	})
	reqR.Close()
	resW.Close()
	raw, err = io.ReadAll(io.LimitReader(resR, wire.MaxResultBytes))
	if err != nil {
		t.Fatal(err)
	}
	return raw, cmd.Stdout.(interface{ String() string }).String()
}
