package escape

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// TestMachineNamesTheBuildsCommit: a kernel report's header names the
// commit the binary that ran its targets was built from, read from that
// binary's own stamp, not the test's; the control, the tests' own build
// (-buildvcs=false), names none. Outside a git checkout it is skipped,
// saying so.
func TestMachineNamesTheBuildsCommit(t *testing.T) {
	stamped, commit, modified := buildbin.StampedFor(t)
	plain, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, bin    string
		wantCommit   string
		wantModified bool
	}{
		{name: "stamped", bin: stamped, wantCommit: commit, wantModified: modified},
		{name: "the control: not stamped", bin: plain},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Machine(tt.bin)
			if err != nil {
				t.Fatal(err)
			}
			if r.Build.Commit != tt.wantCommit || r.Build.Modified != tt.wantModified {
				t.Errorf("the report names commit %q, modified %v; want %q, %v", r.Build.Commit,
					r.Build.Modified, tt.wantCommit, tt.wantModified)
			}
		})
	}
}

// TestMachineReadsItsBinarysStamp: the commit a kernel report names is
// read from the stamp of the binary it was given, outside any Sabline
// checkout too: a stand-in for sabline (it says a machine to `doctor
// --json` and a process id to the i386 probe), built in a repository of
// its own with its commit stamped, and again with a change not committed.
// The control: the same stand-in built with -buildvcs=false names none.
func TestMachineReadsItsBinarysStamp(t *testing.T) {
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s to build a stamped binary with: %v", tool, err)
		}
	}
	repo := t.TempDir()
	const main = `package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "doctor" {
		fmt.Print(` + "`" + `{"machine":{"os":"linux"}}` + "`" + `)
		return
	}
	fmt.Println("i386-getpid", os.Getpid())
}
`
	for name, text := range map[string]string{"go.mod": "module standin\n\ngo 1.21\n",
		"main.go": main} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	command := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOTOOLCHAIN=local",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	command("git", "init", "-q")
	command("git", "add", "go.mod", "main.go")
	command("git", "-c", "user.name=sabline", "-c", "user.email=sabline@example.invalid",
		"commit", "-q", "-m", "a stand-in")
	head := command("git", "rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "standin")
	for _, tt := range []struct {
		name, vcs    string
		change       bool
		wantCommit   string
		wantModified bool
	}{
		{name: "stamped", vcs: "-buildvcs=true", wantCommit: head},
		{name: "stamped, with a change", vcs: "-buildvcs=true", change: true, wantCommit: head,
			wantModified: true},
		{name: "the control: not stamped", vcs: "-buildvcs=false", change: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.change {
				if err := os.WriteFile(filepath.Join(repo, "main.go"), []byte(main+"\n"),
					0o600); err != nil {
					t.Fatal(err)
				}
			}
			command("go", "build", tt.vcs, "-o", bin, ".")
			r, err := Machine(bin)
			if err != nil {
				t.Fatal(err)
			}
			if r.Build.Commit != tt.wantCommit || r.Build.Modified != tt.wantModified {
				t.Errorf("the report names commit %q, modified %v; want %q, %v", r.Build.Commit,
					r.Build.Modified, tt.wantCommit, tt.wantModified)
			}
		})
	}
}
