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
			reqR, reqW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			resR, resW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer resR.Close()
			if _, err := io.WriteString(reqW, tt.line); err != nil {
				t.Fatal(err)
			}
			reqW.Close()
			cmd := testkit.Rerun(t, "worker", func(c *exec.Cmd) {
				c.ExtraFiles = []*os.File{reqR, resW}
			})
			reqR.Close()
			resW.Close()
			raw, err := io.ReadAll(io.LimitReader(resR, wire.MaxResultBytes))
			if err != nil {
				t.Fatal(err)
			}
			res, final, _, bad := wire.ReadResults(raw)
			o := res.Outcome
			if bad != nil || !final || o.Status != tt.wantStatus || o.Code != tt.wantCode ||
				!strings.Contains(o.Message, tt.wantMessage) {
				t.Fatalf("the worker's record: %+v (final %v, %v), want %s %s %q",
					o, final, bad, tt.wantStatus, tt.wantCode, tt.wantMessage)
			}
			out := cmd.Stdout.(interface{ String() string }).String()
			if ran := strings.Contains(out, "ran\n"); ran != tt.wantRan {
				t.Errorf("the program ran: %v, want %v\n%s", ran, tt.wantRan, out)
			}
		})
	}
}
