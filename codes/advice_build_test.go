package codes

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// adviceBuild is a build command a code's advice gives: go build -o DIR
// and the packages it names.
var adviceBuild = regexp.MustCompile(`go build -o DIR(/?)((?: \./cmd/[a-z-]+)+)`)

// TestAdviceBuildsIntoANewDirectory: a go build that a code's advice
// tells the user to run (E338's, the doors' command) builds as written
// into a directory that does not exist yet, as one made for the build
// is: the go command writes several packages only to a name that is a
// directory already or ends in a separator, and refused the advice's
// `go build -o DIR ./cmd/sabline ./cmd/sabline-door` ("cannot write
// multiple packages to non-directory"). The go command is asked what it
// would do (-n), and builds nothing. Its control: the same packages into
// a directory that exists, which the go command took before.
func TestAdviceBuildsIntoANewDirectory(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipped: no go command on PATH to ask (%v)", err)
	}
	n := 0
	for _, c := range Codes {
		for _, m := range adviceBuild.FindAllStringSubmatch(c.Do, -1) {
			n++
			pkgs := strings.Fields(m[2])
			build := func(dir string) (string, error) {
				args := append([]string{"build", "-n", "-o", dir}, pkgs...)
				cmd := exec.Command(goCmd, args...)
				cmd.Dir = ".."
				out, err := cmd.CombinedOutput()
				return lastLine(string(out)), err
			}
			fresh := filepath.Join(t.TempDir(), "bin") + m[1]
			if out, err := build(fresh); err != nil {
				t.Errorf("%s's advice, %s, into a new directory: %v: %s", c.Code, m[0], err, out)
			}
			if out, err := build(t.TempDir()); err != nil {
				t.Errorf("the control: %s's packages into a directory that exists: %v: %s",
					c.Code, err, out)
			}
		}
	}
	if n == 0 {
		t.Fatal("no code's advice gives a go build -o DIR: E338's is gone, or this test no " +
			"longer finds it")
	}
}

// lastLine is the last line of out that holds anything.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}
