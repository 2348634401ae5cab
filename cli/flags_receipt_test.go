package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestRefusedValuesLeaveAReceipt: every value a run's flag refuses is
// refused alike: E301, exit 2, nothing run, and one receipt of the
// refusal naming the program, whichever flag it is (the values the flag
// package reads and those read after it were treated differently). The
// control is the same command line with the values written right, which
// runs; and a refused value with no program named leaves no receipt, as
// there is no run to account for.
func TestRefusedValuesLeaveAReceipt(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "hello.vel")
	if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		wantMsg string // "" for a run that runs
	}{
		{name: "timeout not a duration", args: []string{"--timeout", "abc"}, wantMsg: `--timeout "abc": not a duration`},
		{name: "timeout zero", args: []string{"--timeout=0s"}, wantMsg: `--timeout "0s": want a duration above zero`},
		{name: "memory too small", args: []string{"--max-memory-mb", "1"}, wantMsg: `--max-memory-mb "1": want at least 16`},
		{name: "memory not a number", args: []string{"--max-memory-mb", "lots"}, wantMsg: `--max-memory-mb "lots"`},
		{name: "confine unknown", args: []string{"--confine", "loose"}, wantMsg: `--confine "loose"`},
		{name: "required level unknown", args: []string{"--require-confinement", "maybe"}, wantMsg: `--require-confinement "maybe"`},
		{name: "item malformed", args: []string{"--allow", "io,fs:frob:x:y"}, wantMsg: `--allow`},
		{name: "module unregistered", args: []string{"--allow", "io,ffi:jsno"}, wantMsg: `no host module "jsno"`},
		{name: "tool channel on stdout", args: []string{"--tool-fd", "1"}, wantMsg: `--tool-fd 1`},
		{name: "two refused: the first is said", args: []string{"--timeout", "abc", "--max-memory-mb", "1"}, wantMsg: `--timeout "abc"`},
		{name: "the values written right", args: []string{"--timeout", "10s", "--max-memory-mb", "64", "--confine", "strict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := t.TempDir()
			args := append(append([]string{"--allow", "io", "--receipts", rc}, tt.args...), prog)
			var stdout, stderr bytes.Buffer
			status := Main(args, strings.NewReader(""), &stdout, &stderr)
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("%d receipts (%v), want 1; stderr %s", len(runs), err, stderr.String())
			}
			o := runs[0].Outcome
			if tt.wantMsg == "" {
				if status != 0 || o.Status != receipt.StatusOK || stdout.String() != "hello\n" {
					t.Errorf("status %d, outcome %+v, stdout %q: want it run", status, o, stdout.String())
				}
				return
			}
			if status != codes.ExitUsage || o.Code != codes.E301 || o.Status != receipt.StatusUsage || !strings.Contains(o.Message, tt.wantMsg) ||
				runs[0].Program.Path != prog || stdout.Len() != 0 || !strings.Contains(stderr.String(), "receipt: ") {
				t.Errorf("status %d, outcome %+v, program %s, stdout %q, stderr %s: want E301 %q, usage, the program named, its receipt printed",
					status, o, runs[0].Program.Path, stdout.String(), stderr.String(), tt.wantMsg)
			}
		})
	}
	rc := t.TempDir()
	var stderr bytes.Buffer
	if status := Main([]string{"--receipts", rc, "--timeout", "abc"}, strings.NewReader(""), &bytes.Buffer{}, &stderr); status != codes.ExitUsage {
		t.Errorf("no program, a refused value: status %d, %s", status, stderr.String())
	}
	if runs, _ := receipt.List(rc); len(runs) != 0 {
		t.Errorf("no program, a refused value: %d receipts, want none", len(runs))
	}
}
