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

// TestEvalAndReplayInARemovedWorkingDirectory: eval and replay, started
// in a working directory that was removed, are refused E301 saying what
// to do about the directory (cwdDo), where their advice was to fix a
// flag or item, which none of theirs was; the message names the command
// it refuses. The control: the same command
// in a directory that is there runs.
func TestEvalAndReplayInARemovedWorkingDirectory(t *testing.T) {
	bin := sablineBin(t)
	prog := helloProgram(t)
	dir := t.TempDir()
	class, rc := filepath.Join(dir, "class"), filepath.Join(dir, "receipts")
	if err := os.Mkdir(class, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a.vel": "print(\"hello\")\n", "a.out": "hello\n"} {
		if err := os.WriteFile(filepath.Join(class, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(bin, prog, "--allow", "io", "--receipts", rc).CombinedOutput(); err != nil {
		t.Fatalf("the run to replay: %v\n%s", err, out)
	}
	for _, tt := range []struct {
		name    string
		args    []string
		removed bool
	}{
		{name: "eval, removed", args: []string{"eval", class, "--allow", "io"}, removed: true},
		{name: "replay, removed", args: []string{"replay", "last", "--receipts", rc}, removed: true},
		{name: "eval, there (the control)", args: []string{"eval", class, "--allow", "io"}},
		{name: "replay, there (the control)", args: []string{"replay", "last", "--receipts", rc}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wd := filepath.Join(t.TempDir(), "wd")
			if err := os.Mkdir(wd, 0o700); err != nil {
				t.Fatal(err)
			}
			script := `cd "$1" && shift && exec "$@"`
			if tt.removed {
				script = `cd "$1" && rmdir "$1" && shift && exec "$@"`
			}
			out, err := exec.Command("/bin/sh", append([]string{"-c", script, "sh", wd, bin},
				tt.args...)...).CombinedOutput()
			said := strings.Contains(string(out), tt.args[0]+": the working directory") &&
				strings.Contains(string(out), cwdDo)
			if said != tt.removed || tt.removed == (err == nil) {
				t.Errorf("%s: %v, said what to do about the working directory: %v, want %v; "+
					"it said:\n%s", tt.args[0], err, said, tt.removed, out)
			}
		})
	}
}
