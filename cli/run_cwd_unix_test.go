//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/receipt"
)

// TestRunInARemovedWorkingDirectory: a command-line run whose caller's
// working directory was removed before it started (a CI step that
// cleaned its workspace, a shell left in a deleted directory) is refused
// with E301, nothing run, and leaves the receipt of its refusal, as every
// run that names a program and cannot start does (docs/errors.md). It
// printed "sabline: getwd: no such file or directory" before, with no
// code and no receipt. The control is the same run in a directory that
// is there: it runs. The directory is removed by the shell that starts
// sabline, never by this process, whose own directory stays.
func TestRunInARemovedWorkingDirectory(t *testing.T) {
	bin := sablineBin(t)
	prog := helloProgram(t)
	for _, tt := range []struct {
		name, script, wantOutcome string
	}{
		{name: "removed", script: `cd "$1" && rmdir "$1" && exec "$2" "$3" --allow io --receipts "$4"`,
			wantOutcome: "usage E301"},
		{name: "there", script: `cd "$1" && exec "$2" "$3" --allow io --receipts "$4"`,
			wantOutcome: "ok "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			wd, rc := filepath.Join(dir, "wd"), filepath.Join(dir, "receipts")
			if err := os.Mkdir(wd, 0o700); err != nil {
				t.Fatal(err)
			}
			out, _ := exec.Command("/bin/sh", "-c", tt.script, "sh", wd, bin, prog, rc).CombinedOutput()
			runs, err := receipt.List(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("want one receipt in %s, got %d (%v); the command said:\n%s", rc, len(runs), err, out)
			}
			o := runs[0].Receipt.Outcome
			if got := string(o.Status) + " " + string(o.Code); got != tt.wantOutcome {
				t.Fatalf("outcome %q (%s), want %q; the command said:\n%s", got, o.Message, tt.wantOutcome, out)
			}
			if tt.wantOutcome == "ok " {
				if !strings.HasPrefix(string(out), "hello\n") {
					t.Fatalf("the control did not run: %s", out)
				}
				return
			}
			if !strings.Contains(string(out), "E301: the working directory") ||
				!strings.Contains(string(out), "receipt: "+runs[0].Path) || strings.Contains(string(out), "hello") {
				t.Fatalf("the refusal does not say E301 and its receipt, or the program ran:\n%s", out)
			}
		})
	}
}

// helloProgram is a program that prints "hello", in a directory of the
// test's own.
func helloProgram(t *testing.T) string {
	t.Helper()
	prog := filepath.Join(t.TempDir(), "hello.vel")
	if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return prog
}
