//go:build windows

package confine

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

// windowsHelperEnv makes the test binary a worker: it applies a policy
// (unless told not to), then starts a process that would leave a file in
// the private temporary directory, and writes one there and one in a
// scratch directory of the user's.
const windowsHelperEnv = "SABLINE_WINDOWS_APPLY_HELPER"

func windowsApplyHelper(spec string) {
	parts := strings.Split(spec, "\n")
	mode, tmp, scratch := parts[0], parts[1], parts[2]
	if mode == "apply" {
		p := OSPolicy(budget.MustParse(tmp, "io,fs:read:"+scratch), Options{})
		r, err := Apply(p, ApplyOptions{TempDir: tmp, MaxMemoryMB: 256})
		out, _ := json.Marshal(r)
		os.Stdout.WriteString("RESULT " + string(out) + "\n")
		if err != nil {
			os.Stdout.WriteString("ERROR " + err.Error() + "\n")
		}
	}
	if err := exec.Command("cmd.exe", "/c", "type nul > "+filepath.Join(tmp, "started.txt")).Run(); err != nil {
		os.Stdout.WriteString("START " + err.Error() + "\n")
	}
	_ = os.WriteFile(filepath.Join(tmp, "tmp.txt"), []byte("x"), 0o600)
	_ = os.WriteFile(filepath.Join(scratch, "escape.txt"), []byte("x"), 0o600)
	os.Exit(0)
}

// runWindowsHelper starts the helper as the supervisor starts a worker:
// PrepareWorker, Start, AfterStart, Wait, Close.
func runWindowsHelper(t *testing.T, mode string, p Policy, tmp, scratch string) (Result, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWindowsApply")
	cmd.Env = append(os.Environ(), windowsHelperEnv+"="+mode+"\n"+tmp+"\n"+scratch)
	s, err := PrepareWorker(cmd, p, WorkerOptions{TempDir: tmp, MaxMemoryMB: 256})
	if err != nil {
		t.Fatalf("PrepareWorker: %v", err)
	}
	defer s.Close()
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := s.AfterStart(cmd.Process.Pid); err != nil {
		t.Fatalf("AfterStart: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out.String())
	}
	var r Result
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		if j, ok := strings.CutPrefix(sc.Text(), "RESULT "); ok {
			if err := json.Unmarshal([]byte(j), &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("helper said:\n%s", out.String())
	return r, out.String()
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestWindowsApplyJobAndToken runs a worker in its job with a read-only
// budget and watches from outside: no process it starts leaves its file,
// no write outside the private temporary directory is made, and the
// write into that directory (labelled low) is. The control, a worker
// with the job's kill-on-close alone and no Apply, does all three.
func TestWindowsApplyJobAndToken(t *testing.T) {
	if spec := os.Getenv(windowsHelperEnv); spec != "" {
		windowsApplyHelper(spec)
	}
	t.Run("held", func(t *testing.T) {
		tmp, scratch := t.TempDir(), t.TempDir()
		p := OSPolicy(budget.MustParse(tmp, "io,fs:read:"+scratch), Options{})
		r, _ := runWindowsHelper(t, "apply", p, tmp, scratch)
		for _, l := range []string{LayerJobObject, LayerTokenPrivs, LayerLowIntegrity} {
			if !slices.Contains(r.Layers, l) {
				t.Errorf("layers %v lack %s; reason: %s", r.Layers, l, r.Reason)
			}
		}
		if slices.Contains(r.Layers, LayerAppContainer) || !strings.Contains(r.Reason, containerNotBuilt) {
			t.Errorf("Result %+v: the container is claimed, or its absence not explained", r)
		}
		if exists(filepath.Join(tmp, "started.txt")) {
			t.Error("a process the worker started ran, under a job of one process")
		}
		if exists(filepath.Join(scratch, "escape.txt")) {
			t.Error("a low integrity worker wrote to a directory of the user's")
		}
		if !exists(filepath.Join(tmp, "tmp.txt")) {
			t.Error("the worker could not write its private temporary directory")
		}
	})
	t.Run("control without confinement", func(t *testing.T) {
		tmp, scratch := t.TempDir(), t.TempDir()
		runWindowsHelper(t, "none", Policy{}, tmp, scratch)
		for _, f := range []string{filepath.Join(tmp, "started.txt"), filepath.Join(scratch, "escape.txt"), filepath.Join(tmp, "tmp.txt")} {
			if !exists(f) {
				t.Errorf("without confinement %s was not made: the held case proves nothing", f)
			}
		}
	})
}

// TestWindowsContainedOutsideClaimsNothing tells a worker it runs in an
// AppContainer it is not in: it must claim none.
func TestWindowsContainedOutsideClaimsNothing(t *testing.T) {
	t.Setenv(ContainerSIDEnv, "S-1-15-2-1-2-3-4-5-6-7")
	is, sid, err := ownContainer()
	if err != nil {
		t.Fatal(err)
	}
	if is || sid != "" {
		t.Fatalf("the test process reads as an AppContainer (%v, %q): the check below proves nothing", is, sid)
	}
	held, problem := containerClaim(os.Getenv(ContainerSIDEnv), is, sid, err)
	if held || !strings.Contains(problem, "not an AppContainer's") {
		t.Fatalf("containerClaim = %v, %q", held, problem)
	}
}
