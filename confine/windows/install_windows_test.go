//go:build windows

package windows

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
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
		p := core.OSPolicy(budget.MustParse(tmp, "io,fs:read:"+scratch), core.Options{})
		r, err := Apply(p, 256, nil)
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
func runWindowsHelper(t *testing.T, mode string, p core.Policy, tmp, scratch string) (core.Result, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWindowsApply")
	cmd.Env = append(os.Environ(), windowsHelperEnv+"="+mode+"\n"+tmp+"\n"+scratch)
	s, err := PrepareWorker(cmd, p, "", tmp, 256)
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
	var r core.Result
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
		p := core.OSPolicy(budget.MustParse(tmp, "io,fs:read:"+scratch), core.Options{})
		r, _ := runWindowsHelper(t, "apply", p, tmp, scratch)
		for _, l := range []string{core.LayerJobObject, core.LayerTokenPrivs, core.LayerLowIntegrity} {
			if !slices.Contains(r.Layers, l) {
				t.Errorf("layers %v lack %s; reason: %s", r.Layers, l, r.Reason)
			}
		}
		// Its output goes to a strings.Builder, not a file: no container.
		if slices.Contains(r.Layers, core.LayerAppContainer) || !strings.Contains(r.Reason, containerNeedsFiles) {
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
		runWindowsHelper(t, "none", core.Policy{}, tmp, scratch)
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
	t.Setenv(containerSIDEnv, "S-1-15-2-1-2-3-4-5-6-7")
	is, sid, err := ownContainer()
	if err != nil {
		t.Fatal(err)
	}
	if is || sid != "" {
		t.Fatalf("the test process reads as an AppContainer (%v, %q): the check below proves nothing", is, sid)
	}
	held, problem := containerClaim(os.Getenv(containerSIDEnv), is, sid, err)
	if held || !strings.Contains(problem, "not an AppContainer's") {
		t.Fatalf("containerClaim = %v, %q", held, problem)
	}
}

// TestWindowsContainerACEsTakenBack runs a worker whose streams are files,
// so that its budget gets an AppContainer where this system's containers
// pass the probe. Either it is claimed, and then the grant holds the
// container's ACE while the run lasts and none once Close has run; or it
// is left off and the receipt's reason says why.
func TestWindowsContainerACEsTakenBack(t *testing.T) {
	if spec := os.Getenv(windowsHelperEnv); spec != "" {
		windowsApplyHelper(spec)
	}
	tmp, granted := t.TempDir(), t.TempDir()
	out, err := os.Create(filepath.Join(t.TempDir(), "out.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	p := core.OSPolicy(budget.MustParse(tmp, "io,fs:read:"+granted), core.Options{})
	cmd := exec.Command(os.Args[0], "-test.run=^TestWindowsContainerACEsTakenBack$")
	cmd.Env = append(os.Environ(), windowsHelperEnv+"=apply\n"+tmp+"\n"+granted)
	cmd.Stdout, cmd.Stderr = out, out
	s, err := PrepareWorker(cmd, p, "test"+strconv.Itoa(os.Getpid()), tmp, 0)
	if err != nil {
		t.Fatalf("PrepareWorker: %v", err)
	}
	sid := ""
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, containerSIDEnv+"="); ok {
			sid = v
		}
	}
	if err := s.Start(); err != nil {
		s.Close()
		t.Fatal(err)
	}
	_ = s.AfterStart(cmd.Process.Pid)
	waitErr := cmd.Wait()
	if sid != "" {
		if sd, err := windows.GetNamedSecurityInfo(granted, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION); err != nil || !strings.Contains(sd.String(), sid) {
			t.Errorf("while the run lasts, %s's rights lack the container's ACE (%v)", granted, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	raw, _ := os.ReadFile(out.Name())
	t.Logf("container SID %q; worker (%v) said:\n%s", sid, waitErr, raw)
	var r core.Result
	for _, line := range strings.Split(string(raw), "\n") {
		if j, ok := strings.CutPrefix(strings.TrimSpace(line), "RESULT "); ok {
			_ = json.Unmarshal([]byte(j), &r)
		}
	}
	if sid == "" {
		t.Skipf("this system left the container off, as the reason says: %s", r.Reason)
	}
	if !slices.Contains(r.Layers, core.LayerAppContainer) {
		t.Errorf("the worker started in container %s does not claim it: %+v", sid, r)
	}
	sd, err := windows.GetNamedSecurityInfo(granted, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sd.String(), sid) {
		t.Errorf("after Close, %s still holds an ACE for %s: %s", granted, sid, sd.String())
	}
}
