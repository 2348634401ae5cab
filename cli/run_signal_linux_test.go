package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// TestRunStoppedBySignal: a command-line run whose supervisor gets SIGTERM
// stops its worker, exits 128+15 and finishes the receipt saying so (E309);
// the worker is gone, seen in /proc. The control: the same program with
// no signal runs to its end, ok.
func TestRunStoppedBySignal(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "spin.vel")
	src := "start = clock.now()\nwhile clock.now() - start < LIMIT:\n    pass\nprint(\"done\")\n"
	if err := os.WriteFile(prog, []byte(strings.Replace(src, "LIMIT", "int(ARGS[0])", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(seconds string, stop bool) (*exec.Cmd, string, int) {
		rc := t.TempDir()
		cmd := exec.Command(bin, "--receipts", rc, "--allow", "io,clock", prog, "--", seconds)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		worker := 0
		if stop {
			for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); worker == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				worker, _ = proc.Worker(cmd.Process.Pid)
			}
			if worker == 0 {
				t.Fatal("no worker appeared")
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		}
		_ = cmd.Wait()
		if worker != 0 {
			if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(worker))); err == nil {
				t.Errorf("worker %d still exists after its supervisor stopped", worker)
			}
		}
		runs, err := receipt.List(rc)
		if err != nil || len(runs) != 1 {
			t.Fatalf("receipts %d (%v), want one", len(runs), err)
		}
		return cmd, out.String() + "|" + runs[0].Outcome.Status + "|" + string(runs[0].Outcome.Code), cmd.ProcessState.ExitCode()
	}
	_, got, code := run("0", false)
	if code != 0 || !strings.Contains(got, "done") || !strings.HasSuffix(got, "|ok|") {
		t.Fatalf("the control run: exit %d, %q; want it to end ok", code, got)
	}
	_, got, code = run("60", true)
	if code != 128+int(syscall.SIGTERM) || !strings.Contains(got, "E309: the supervisor received terminated") || !strings.HasSuffix(got, "|killed|E309") {
		t.Errorf("the stopped run: exit %d, %q; want 143, E309 in the message and the receipt", code, got)
	}
}
