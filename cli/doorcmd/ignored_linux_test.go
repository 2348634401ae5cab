package doorcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/testkit"
)

// TestDoorsKeepAnIgnoredInterrupt: serve and mcp started ignoring SIGINT
// (a script's background job), and mcp SIGHUP (nohup), keep ignoring them, read from outside in the
// kernel's dispositions (/proc/PID/status: SigIgn, not SigCgt, read once
// each says it listens, which it says once it has taken its signals, or
// answered), and a SIGINT then
// sent ends nothing: a run is answered after it. The control: each
// started not ignoring it takes it (SigCgt).
func TestDoorsKeepAnIgnoredInterrupt(t *testing.T) {
	bin := sablineBin(t)
	wrap := func(trap string, args ...string) (string, []string) {
		return "/bin/sh", append([]string{"-c", trap + `exec "$@"`, "sh", bin}, args...)
	}
	for _, trap := range []string{"", "trap '' INT HUP; "} {
		ignoring := trap != ""
		s := &served{}
		dir := t.TempDir()
		s.root, s.rc, s.tmp, s.exited = dir, filepath.Join(dir, "rc"), filepath.Join(dir, "tmp"),
			make(chan error, 1)
		testkit.WriteFile(t, filepath.Join(dir, "hello.vel"), "print(\"hello, world\")\n")
		sh, args := wrap(trap, "serve", "--import-root", dir, "--allow", "io", "--listen",
			"127.0.0.1:0", "--receipts", s.rc, "--workers", "1")
		s.start(t, sh, args, os.Environ())
		wantDisposition(t, "serve", s.cmd.Process.Pid, syscall.SIGINT, ignoring)
		if ignoring {
			_ = s.cmd.Process.Signal(syscall.SIGINT)
			if st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`); st != 200 ||
				v["status"] != "ok" {
				t.Errorf("serve, a run after SIGINT: %d %v; want 200, ok", st, v)
			}
		}

		sh, args = wrap(trap, "mcp", "--import-root", dir, "--allow", "io", "--receipts",
			filepath.Join(dir, "rc2"), "--workers", "1")
		cmd := exec.Command(sh, args...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
			Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListTools(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		wantDisposition(t, "mcp", cmd.Process.Pid, syscall.SIGINT, ignoring)
		wantDisposition(t, "mcp", cmd.Process.Pid, syscall.SIGHUP, ignoring)
		if ignoring {
			_ = cmd.Process.Signal(syscall.SIGINT)
			mcpHello(t, cs, "after SIGINT")
		}
		cs.Close()
	}
}

// wantDisposition checks in /proc/PID/status that the process pid, a
// door the test started, ignores sig (SigIgn) or catches it (SigCgt).
func wantDisposition(t *testing.T, who string, pid int, sig syscall.Signal, ignored bool) {
	t.Helper()
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	has := func(field string) bool {
		for line := range strings.SplitSeq(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, field+":\t"); ok {
				mask, err := strconv.ParseUint(v, 16, 64)
				return err == nil && mask&(1<<(sig-1)) != 0
			}
		}
		return false
	}
	if ign, cgt := has("SigIgn"), has("SigCgt"); ign != ignored || cgt == ignored {
		t.Errorf("%s started ignoring %v: %v: ignores it %v, catches it %v", who, sig, ignored, ign, cgt)
	}
}
