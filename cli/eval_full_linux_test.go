package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestEvalReceiptsFillMidway: sabline eval whose receipts' file system
// filled while its first program ran graded that program (its receipt
// finished in its reserved space), met E317 at the next program's
// reservation and printed that alone: the first program's grade was
// never shown, nor how many programs were left. Now it prints the grades
// so far, says how many .vel files it did not run, then the E317 with
// what to do, and exits 2; no program after it ran. The control: the
// same suite on a file system that keeps its room grades all three.
func TestEvalReceiptsFillMidway(t *testing.T) {
	bin := sablineBin(t)
	eval := func(fill bool) (string, int, []receipt.StoredReceipt) {
		mnt := testkit.MountSmallFS(t)
		port, answered := testkit.Gate(t, func() {
			if fill {
				fillFS(t, mnt)
			}
		})
		suite := t.TempDir()
		testkit.WriteFile(t, filepath.Join(suite, "a.vel"), fmt.Sprintf(
			"c = net.connect(\"127.0.0.1\", %s)\nc.recv(3)\nc.close()\nprint(\"done\")\n", port))
		for _, name := range []string{"b", "c"} {
			testkit.WriteFile(t, filepath.Join(suite, name+".vel"), "print(\"done\")\n")
		}
		for _, name := range []string{"a", "b", "c"} {
			testkit.WriteFile(t, filepath.Join(suite, name+".out"), "done\n")
		}
		rc := filepath.Join(mnt, "receipts")
		cmd := exec.Command(bin, "eval", suite, "--allow", "io,net:127.0.0.1:"+port,
			"--timeout", "60s", "--receipts", rc)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		got, code, runs := evalEnded(t, cmd, &out, rc)
		if err := answered(); err != nil {
			t.Fatal(err)
		}
		return got, code, runs
	}
	if out, code, runs := eval(false); code != 0 || len(runs) != 3 {
		t.Fatalf("the control: exit %d, %d receipts, %q; want 0 and 3", code, len(runs), out)
	}
	out, code, runs := eval(true)
	if len(runs) != 1 || runs[0].Outcome.Status != receipt.StatusOK {
		t.Fatalf("receipts kept: %+v; want a.vel's alone, finished", runs)
	}
	for _, want := range []string{"PASS  a.vel", "2 .vel files of the directory not run",
		"E317", "no space left on device", "what to do:"} {
		if !strings.Contains(out, want) {
			t.Errorf("sabline eval, its receipts' file system filled midway, printed %q; "+
				"want %q in it", out, want)
		}
	}
	if code != 2 {
		t.Errorf("exit %d, want 2 (E317)", code)
	}
}

// fillFS writes a file in dir, a small file system the test mounted,
// until the file system has no room left.
func fillFS(t *testing.T, dir string) {
	t.Helper()
	f, err := os.CreateTemp(dir, "fill-")
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("fill %s: %v; want ENOSPC", dir, err)
			}
			return
		}
	}
}
