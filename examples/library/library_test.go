package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestMain(m *testing.M) {
	code := testkit.RunApart(m) // the binaries it runs join a register of its own
	buildbin.Cleanup()
	os.Exit(code)
}

func library(t *testing.T, tags ...string) string {
	t.Helper()
	bin, err := buildbin.Build("github.com/sabline/sabline/examples/library", "library", tags...)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestLibraryRuns: the example runs a program through sabline.Run and
// through a pool, each confined in full.
func TestLibraryRuns(t *testing.T) {
	if confine.Probe().LandlockABI < 1 {
		t.Skip("no Landlock on this kernel: the level cannot be full")
	}
	bin := library(t)
	for _, args := range [][]string{{"hello.vel"}, {"-pool", "hello.vel", "hello.vel"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		if n := strings.Count(string(out), "ok, level full"); n != len(args)-strings.Count(strings.Join(args, " "), "-pool") {
			t.Errorf("%v: %q, want each run ok at level full", args, out)
		}
	}
}

// TestPoolReadsHeldByTheKernel: in a knock-out build (every budget check
// passes), a pooled program reading a file outside the pool's import root
// is refused by the kernel; the same program reading a file inside it
// reads it. The file's bytes are what the program would print.
func TestPoolReadsHeldByTheKernel(t *testing.T) {
	if confine.Probe().LandlockABI < 1 {
		t.Skip("no Landlock on this kernel: reads are not held")
	}
	bin := library(t, "sabline_knockout")
	root := t.TempDir()
	src, err := os.ReadFile("read.vel")
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(root, "read.vel")
	inside := filepath.Join(root, "inside.txt")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	for p, data := range map[string]string{prog: string(src), inside: "inside-bytes", outside: "outside-bytes"} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(bin, "-pool", "-allow", "io", prog, "--", outside).CombinedOutput()
	if err == nil || strings.Contains(string(out), "outside-bytes") || !strings.Contains(string(out), "E319") {
		t.Errorf("reading outside the import root: %v\n%s\nwant it refused by the kernel (E319), the bytes unread", err, out)
	}
	out, err = exec.Command(bin, "-pool", "-allow", "io", prog, "--", inside).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "inside-bytes") {
		t.Errorf("reading inside the import root: %v\n%s\nwant its bytes printed", err, out)
	}
}
