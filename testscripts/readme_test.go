package testscripts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/guard"
)

// tourStep is one `$ ` command of the README and the lines it shows.
type tourStep struct {
	line int    // in README.md
	cmd  string // without the "$ "
	want []string
}

// tourSteps reads the `$ ` commands of the README's ```sh blocks, each
// with the lines that follow it up to the next command or the end of the
// block.
func tourSteps(readme string) []tourStep {
	var steps []tourStep
	inSh := false
	for i, l := range strings.Split(readme, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			inSh = l == "```sh"
		case !inSh:
		case strings.HasPrefix(l, "$ "):
			steps = append(steps, tourStep{line: i + 1, cmd: strings.TrimPrefix(l, "$ ")})
		case len(steps) > 0:
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
		}
	}
	return steps
}

// shape makes a regular expression of a line the README shows: "..."
// stands for anything, a number for any number, and true or false for
// either, since those differ from machine to machine.
func shape(want string) *regexp.Regexp {
	var b strings.Builder
	for i, part := range strings.Split(want, "...") {
		if i > 0 {
			b.WriteString(".*")
		}
		q := regexp.QuoteMeta(part)
		q = regexp.MustCompile(`[0-9]+`).ReplaceAllString(q, `[0-9]+`)
		q = regexp.MustCompile(`\b(true|false)\b`).ReplaceAllString(q, `(true|false)`)
		b.WriteString(q)
	}
	return regexp.MustCompile("^" + b.String() + "$")
}

// TestReadmeTour runs the README's tour as a new user would, in a fresh
// copy of the examples, and holds what each command prints to the lines
// the README shows under it. `go run P` must name cmd/sabline from the
// directory the tour is in; the built sabline stands for it, and the
// "exit status N" line go run adds when the command exits other than 0
// is added to its output.
func TestReadmeTour(t *testing.T) {
	if goruntime.GOOS != "linux" || confine.Probe().LandlockABI < 1 {
		t.Skipf("skipped: the tour shows a Linux kernel with Landlock, and this is %s with Landlock ABI %d", goruntime.GOOS, confine.Probe().LandlockABI)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := tourSteps(string(readme))
	if len(steps) == 0 {
		t.Fatal("the README shows no $ commands: the tour is gone, or this test no longer finds it")
	}
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "examples"), os.DirFS(filepath.Join("..", "examples"))); err != nil {
		t.Fatal(err)
	}
	// A fresh clone has no output of an earlier run.
	if err := os.RemoveAll(filepath.Join(root, "examples", "report", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "cmd"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "cmd", "sabline"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), guard.RegisterEnv + "=" + os.Getenv(guard.RegisterEnv)}
	cwd := root
	for _, st := range steps {
		args := strings.Fields(st.cmd)
		switch {
		case len(args) == 2 && args[0] == "cd":
			cwd = filepath.Join(cwd, args[1])
			if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
				t.Fatalf("README.md:%d: %s: no such directory in a fresh clone", st.line, st.cmd)
			}
			continue
		case len(args) >= 3 && args[0] == "go" && args[1] == "run":
			if rel, err := filepath.Rel(root, filepath.Join(cwd, args[2])); err != nil || filepath.ToSlash(rel) != "cmd/sabline" {
				t.Fatalf("README.md:%d: %s: from %s, %s is not cmd/sabline", st.line, st.cmd, cwd, args[2])
			}
			args = args[3:]
		default:
			t.Fatalf("README.md:%d: %s: the tour runs only cd and go run", st.line, st.cmd)
		}
		cmd := exec.Command(filepath.Join(commands(t), "sabline"), args...)
		cmd.Dir, cmd.Env = cwd, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		// go run ends with a line of its own, "exit status N", when the
		// command exits other than 0: the README shows it.
		if err := cmd.Run(); err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("README.md:%d: %s: %v", st.line, st.cmd, err)
			}
			fmt.Fprintf(&out, "exit status %d\n", exit.ExitCode())
		}
		got := strings.Split(strings.TrimSuffix(strings.ReplaceAll(out.String(), home, "~"), "\n"), "\n")
		if out.Len() == 0 {
			got = nil
		}
		var kept []string
		for _, l := range got {
			if !strings.HasPrefix(l, "advice:") { // a machine's own advice, from doctor
				kept = append(kept, l)
			}
		}
		if len(kept) != len(st.want) {
			t.Errorf("README.md:%d: %s printed %d lines, the README shows %d:\n%s", st.line, st.cmd, len(kept), len(st.want), out.String())
			continue
		}
		for i, w := range st.want {
			if !shape(w).MatchString(kept[i]) {
				t.Errorf("README.md:%d: %s, line %d:\n got: %s\nshown: %s", st.line, st.cmd, i+1, kept[i], w)
			}
		}
	}
}
