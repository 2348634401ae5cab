package bench

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGit stands in for git in TestCompareRefusesOneSided: `worktree add`
// makes the commit's tree (an empty bench directory), `worktree remove`
// removes it; nothing else is asked of it.
const fakeGit = `#!/usr/bin/env bash
set -eu
[ "$1" = worktree ] || { echo "fake git: $*" >&2; exit 1; }
for a in "$@"; do prev=${last:-}; last=$a; done
case "$2" in
add) mkdir -p "$prev/bench" ;;
remove) rm -rf "$last" ;;
esac
`

// fakeGo stands in for go: each tree's go test prints a benchmark's line
// unless FAKE_NONE names that tree (before or after), when it prints
// none, as a pattern that matches none there does; go run (benchstat)
// says it ran.
const fakeGo = `#!/usr/bin/env bash
set -eu
tree=after
case "$PWD" in */before/bench) tree=before ;; esac
case "$1" in
test)
  echo "goos: linux"
  if [ "${FAKE_NONE:-}" != "$tree" ]; then
    echo "BenchmarkFake-2   	       1	      1000 ns/op"
  fi
  echo PASS ;;
run) echo "benchstat ran: ${*: -2}" ;;
*) echo "fake go: $*" >&2; exit 1 ;;
esac
`

// TestCompareRefusesOneSided: bench/compare ends, saying so, when its
// pattern matches no benchmark in one of the two trees (it printed this
// tree's figures alone, with no comparison, and exited 0); the control:
// a pattern both trees run reaches benchstat. git and go are stand-ins
// (no checkout, no build): what is tested is the script's own logic.
func TestCompareRefusesOneSided(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash: ", err)
	}
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("bench/compare prints the load from /proc/loadavg: ", err)
	}
	bin := t.TempDir()
	for name, text := range map[string]string{"git": fakeGit, "go": fakeGo} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(none string) (string, error) {
		cmd := exec.Command(bash, "compare", "0123abc", "^BenchmarkFake$", "1x", "2")
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"TMPDIR="+t.TempDir(), "FAKE_NONE="+none)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := compare("")
	if err != nil || !strings.Contains(out, "benchstat ran: before=") {
		t.Fatalf("a benchmark in both trees: %v, want benchstat run:\n%s", err, out)
	}
	for _, none := range []string{"before", "after"} {
		out, err := compare(none)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || strings.Contains(out, "benchstat ran") ||
			!strings.Contains(out, "no benchmark of") {
			t.Errorf("no benchmark in the %s tree: %v, want exit 1, no benchstat, and why:\n%s",
				none, err, out)
		}
	}
}
