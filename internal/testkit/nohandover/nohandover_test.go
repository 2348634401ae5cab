package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestMain(m *testing.M) {
	code := testkit.RunApart(m) // the binaries it runs join a register of its own
	buildbin.Cleanup()
	os.Exit(code)
}

// TestSkippedHandOver: a host that never calls sabline.HandOver starts one
// worker, which runs the host's main again, is refused a run of its own
// (E310), and ends; the host's run ends with one error naming the call.
// Exactly two starts of main: the host's and the one worker's.
func TestSkippedHandOver(t *testing.T) {
	bin, err := buildbin.Build("github.com/sabline/sabline/internal/testkit/nohandover", "nohandover")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("exit %v (%v), want 1\n%s", cmd.ProcessState, err, out)
	}
	msg := string(out)
	if strings.Count(msg, "nohandover:") != 1 || !strings.Contains(msg, "E310") || !strings.Contains(msg, "sabline.HandOver()") {
		t.Errorf("output %q, want one E310 error naming sabline.HandOver()", msg)
	}
	starts, err := os.ReadFile(filepath.Join(dir, "starts.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(starts), "main pid"); n != 2 {
		t.Errorf("main started %d times, want 2 (the host and one worker):\n%s", n, starts)
	}
}
