//go:build unix

package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestRunReceiptUnfinishedExitStatus: a command-line run whose reserved
// receipt cannot be finished (its directory removed while the program
// ran: the receipt is written again beside it and renamed into place, so
// that a removed file alone is written anew) says so, E327, and exits ExitReceipt (4), not the
// program's own status: a caller that reads 0 takes the run for one with
// a receipt. The control: the same run, its receipts directory left in
// place, exits 0.
func TestRunReceiptUnfinishedExitStatus(t *testing.T) {
	bin := sablineBin(t)
	prog := filepath.Join(t.TempDir(), "wait.vel")
	if err := os.WriteFile(prog, []byte("io.read_line()\nprint(\"done\")\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		remove   bool
		wantExit int
	}{
		{name: "its receipts directory removed", remove: true, wantExit: codes.ExitReceipt},
		{name: "its receipts directory in place (the control)", wantExit: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			cmd := exec.Command(bin, prog, "--allow", "io", "--receipts", rc)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The receipt is reserved before the worker starts, and the
			// program waits on its line until the test writes it.
			waitForReceipt(t, rc)
			if tt.remove {
				if err := os.RemoveAll(rc); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := stdin.Write([]byte("go\n")); err != nil {
				t.Fatal(err)
			}
			stdin.Close()
			err = cmd.Wait()
			exit := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != tt.wantExit || !strings.Contains(out.String(), "done\n") {
				t.Fatalf("exit %d, want %d, the program run to its end; it said:\n%s", exit,
					tt.wantExit, out.String())
			}
			if tt.remove && !strings.Contains(out.String(), "E327") {
				t.Fatalf("no E327 said of the receipt not finished:\n%s", out.String())
			}
		})
	}
}

// waitForReceipt waits, bounded, for the one receipt file of a run in
// dir, and returns its path.
func waitForReceipt(t *testing.T, dir string) string {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(30 * time.Second))
	for {
		names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		if len(names) == 1 {
			return names[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no receipt reserved in %s (%q)", dir, names)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
