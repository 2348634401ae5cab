package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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
		rc := filepath.Join(mnt, "receipts")
		cmd, out := startGatedEval(t, bin, port, rc)
		got, code, runs := evalEnded(t, cmd, out, rc)
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

// startGatedEval starts sabline eval (bin) on a suite of three programs,
// each expected to print "done", the first of which waits for the gate on
// port before it prints; their receipts go to rc. Its output is written
// to the builder returned.
func startGatedEval(t *testing.T, bin, port, rc string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	suite := t.TempDir()
	testkit.WriteFile(t, filepath.Join(suite, "a.vel"), fmt.Sprintf(
		"c = net.connect(\"127.0.0.1\", %s)\nc.recv(3)\nc.close()\nprint(\"done\")\n", port))
	for _, name := range []string{"b", "c"} {
		testkit.WriteFile(t, filepath.Join(suite, name+".vel"), "print(\"done\")\n")
	}
	for _, name := range []string{"a", "b", "c"} {
		testkit.WriteFile(t, filepath.Join(suite, name+".out"), "done\n")
	}
	cmd := exec.Command(bin, "eval", suite, "--allow", "io,net:127.0.0.1:"+port,
		"--timeout", "60s", "--receipts", rc)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
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

// TestEvalReceiptUnfinished: sabline eval whose receipts directory was
// removed while its first program ran could not finish that program's
// receipt (E327): the program ran, and is graded, and the grading stops
// there, since the next reservation would make the directory anew and
// its receipts would lie beside no record of the first. It prints the
// first program's grade, says that the two other .vel files were not run,
// then the E327, and exits 4; no program after it ran (the directory is
// not made again). The control: the same suite, its directory kept,
// grades all three and exits 0.
func TestEvalReceiptUnfinished(t *testing.T) {
	bin := sablineBin(t)
	eval := func(remove bool) (string, int, string) {
		rc := filepath.Join(t.TempDir(), "receipts")
		port, answered := testkit.Gate(t, func() {
			if remove {
				if err := os.RemoveAll(rc); err != nil {
					t.Error(err)
				}
			}
		})
		cmd, out := startGatedEval(t, bin, port, rc)
		if !endedWithin(cmd, 60*time.Second) {
			t.Fatalf("sabline eval did not end: killed; it printed %q", out.String())
		}
		if err := answered(); err != nil {
			t.Fatal(err)
		}
		return out.String(), cmd.ProcessState.ExitCode(), rc
	}
	if out, code, _ := eval(false); code != 0 || strings.Count(out, "PASS  ") != 3 {
		t.Fatalf("the control: exit %d, %q; want 0 and three programs passed", code, out)
	}
	out, code, rc := eval(true)
	for _, want := range []string{"PASS  a.vel", "2 .vel files of the directory not run",
		"E327", "what to do:"} {
		if !strings.Contains(out, want) {
			t.Errorf("sabline eval, its receipts directory removed while a.vel ran, printed "+
				"%q; want %q in it", out, want)
		}
	}
	if strings.Contains(out, "b.vel") || strings.Contains(out, "c.vel") {
		t.Errorf("sabline eval printed %q; want no grade of b.vel or c.vel, which did not run", out)
	}
	if _, err := os.Lstat(rc); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the receipts directory after the grading: %v; want none made again "+
			"(no program after a.vel reserved a receipt)", err)
	}
	if code != 4 {
		t.Errorf("exit %d, want 4 (E327)", code)
	}
}

// TestEvalReceiptsRefusedAtOnce: sabline eval whose first reservation
// is refused (E317: its receipts directory is a file) graded nothing,
// and prints the E317 alone, with what to do, and exits 2: no summary of
// grades it never made (a summary of none, "0 passed", read as a suite
// of no programs). The control: the same suite with a receipts directory
// prints its summary.
func TestEvalReceiptsRefusedAtOnce(t *testing.T) {
	bin := sablineBin(t)
	suite := t.TempDir()
	testkit.WriteFile(t, filepath.Join(suite, "a.vel"), "print(\"done\")\n")
	testkit.WriteFile(t, filepath.Join(suite, "a.out"), "done\n")
	eval := func(rc string) (stdout, stderr string, code int) {
		cmd := exec.Command(bin, "eval", suite, "--allow", "io", "--receipts", rc)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if !endedWithin(cmd, 60*time.Second) {
			t.Fatalf("sabline eval did not end: killed; it printed %q", o.String()+e.String())
		}
		return o.String(), e.String(), cmd.ProcessState.ExitCode()
	}
	if stdout, _, code := eval(filepath.Join(t.TempDir(), "receipts")); code != 0 ||
		!strings.Contains(stdout, "PASS  a.vel") || !strings.Contains(stdout, "eval: ") {
		t.Fatalf("the control: exit %d, %q; want 0, a.vel passed and the summary", code, stdout)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	testkit.WriteFile(t, file, "")
	stdout, stderr, code := eval(file)
	if stdout != "" || strings.Contains(stderr, "not run") {
		t.Errorf("sabline eval, its first receipt refused, printed %q and %q; want nothing but "+
			"the refusal", stdout, stderr)
	}
	if !strings.Contains(stderr, "E317") || !strings.Contains(stderr, "what to do:") || code != 2 {
		t.Errorf("sabline eval, its first receipt refused: exit %d, %q; want 2, E317 and what "+
			"to do", code, stderr)
	}
}
