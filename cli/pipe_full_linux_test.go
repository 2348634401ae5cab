package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestCommandOutputRefused: a run whose standard output refuses what it
// is given with its reader still there (/dev/full: ENOSPC, as a full
// disk) fails, E305 naming the error, in its receipt and its exit
// status, whether the program had ended (one line, which the worker's
// pipe took) or printed on into the pipe the relay closed (a flood,
// which the program meets as a broken pipe). The control: the same runs
// into a file print it all, ok; a reader gone is the program's own end
// (TestCommandOutputReaderGone).
func TestCommandOutputRefused(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer full.Close()
	bin := sablineBin(t)
	dir := t.TempDir()
	one := filepath.Join(dir, "one.vel")
	testkit.WriteFile(t, one, "print('one line')\n")
	tests := []struct {
		name, prog  string
		full        bool
		wantOutcome string // the receipt's status and code
		wantLines   int    // in the file, for the control
	}{
		{name: "one line, full", prog: one, full: true, wantOutcome: "failed E305"},
		{name: "a flood, full", prog: floodProgram(t, dir), full: true, wantOutcome: "failed E305"},
		{name: "one line, a file", prog: one, wantOutcome: "ok ", wantLines: 1},
		{name: "a flood, a file", prog: floodProgram(t, dir), wantOutcome: "ok ", wantLines: floodLines},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			cmd := exec.Command(bin, "--allow", "io", "--receipts", rc, tt.prog)
			outFile := filepath.Join(t.TempDir(), "out")
			f, err := os.Create(outFile)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdout = f
			if tt.full {
				cmd.Stdout = full
			}
			var said strings.Builder
			cmd.Stderr = &said
			runErr := cmd.Run()
			runs, _, err := receipt.Scan(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("receipts in %s: %d (%v), want the run's", rc, len(runs), err)
			}
			o := runs[0].Outcome
			if got := string(o.Status) + " " + string(o.Code); got != tt.wantOutcome {
				t.Errorf("outcome %s (%s), want %s", got, o.Message, tt.wantOutcome)
			}
			if tt.full {
				const want = "no space left on device"
				if runErr == nil || !strings.Contains(o.Message, want) ||
					!strings.Contains(said.String(), want) {
					t.Errorf("exit %v, receipt %q, said %q; want a failure naming %q", runErr,
						o.Message, said.String(), want)
				}
				return
			}
			out, _ := os.ReadFile(outFile)
			if n := strings.Count(string(out), "\n"); runErr != nil || n != tt.wantLines {
				t.Errorf("into a file: %v, %d lines, want %d", runErr, n, tt.wantLines)
			}
		})
	}
}
