package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// TestEvalMissingSubmission: an expected output whose program is not in
// the directory (a student who submitted nothing), or has a directory in
// its place, is graded an error, E316, with its receipt. Before, eval
// passed over such a .out as it passes over a library, and a class of
// three of whom two submitted nothing read "1 passed" and exited 0. A
// submission that is there and refused (d.vel, past program.MaxBytes) is
// an error that says why, not a submission missing. The control: the one
// submission alone passes, exit 0.
func TestEvalMissingSubmission(t *testing.T) {
	bin := sablineBin(t)
	eval := func(missing bool) (string, int, []receipt.StoredReceipt) {
		suite, rc := t.TempDir(), t.TempDir()
		testkit.WriteFile(t, filepath.Join(suite, "a.vel"), "print(\"done\")\n")
		testkit.WriteFile(t, filepath.Join(suite, "a.out"), "done\n")
		testkit.WriteFile(t, filepath.Join(suite, "lib.vel"), "def f():\n    return 1\n")
		if missing {
			testkit.WriteFile(t, filepath.Join(suite, "b.out"), "done\n")
			testkit.WriteFile(t, filepath.Join(suite, "c.out"), "done\n")
			if err := os.Mkdir(filepath.Join(suite, "c.vel"), 0o755); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, filepath.Join(suite, "d.out"), "done\n")
			testkit.WriteFile(t, filepath.Join(suite, "d.vel"), "")
			err := os.Truncate(filepath.Join(suite, "d.vel"), program.MaxBytes+1) // sparse
			if err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bin, "eval", suite, "--allow", "io", "--receipts", rc)
		out, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		runs, err := receipt.List(rc)
		if err != nil {
			t.Fatal(err)
		}
		return string(out), cmd.ProcessState.ExitCode(), runs
	}
	if out, code, runs := eval(false); code != 0 || len(runs) != 1 ||
		!strings.Contains(out, "eval: 1 passed, 0 failed, 0 errors") {
		t.Fatalf("the control: exit %d, %d receipts, %q; want 0, one pass", code, len(runs), out)
	}
	out, code, runs := eval(true)
	if code != 1 || !strings.Contains(out, "eval: 1 passed, 0 failed, 3 errors") {
		t.Errorf("two submissions missing, one too large: exit %d, %q; want 1, three errors",
			code, out)
	}
	for _, name := range []string{"b.vel", "c.vel", "d.vel"} {
		if !strings.Contains(out, "ERROR "+name) {
			t.Errorf("%s is not graded an error: %q", name, out)
		}
	}
	refused, large := 0, 0
	for _, r := range runs {
		switch {
		case r.Outcome.Code != "E316":
		case strings.Contains(r.Outcome.Message, "submission missing"):
			refused++
		case strings.Contains(r.Outcome.Message, "d.vel is larger than"):
			large++
		}
	}
	if len(runs) != 4 || refused != 2 || large != 1 {
		t.Errorf("%d receipts, %d of them E316 for a missing submission, %d for d.vel too "+
			"large; want 4, 2 and 1", len(runs), refused, large)
	}
}

// TestEvalTimeoutDefaultShown: eval's --timeout is 10 s unless given, and
// its help says so (it said nothing, as though none bounded a program);
// the control: a value given is the value taken.
func TestEvalTimeoutDefaultShown(t *testing.T) {
	fs, f := evalFlagSet()
	var help strings.Builder
	fs.SetOutput(&help)
	fs.PrintDefaults()
	if !strings.Contains(help.String(), "(default 10s)") || f.run.timeout != defaultEvalTimeout {
		t.Errorf("eval's --timeout: %v, help:\n%s\nwant 10s, said", f.run.timeout, help.String())
	}
	if err := fs.Parse([]string{"--timeout", "3s"}); err != nil || f.run.timeout != 3*time.Second {
		t.Errorf("--timeout 3s: %v, %v; want 3s", f.run.timeout, err)
	}
}
