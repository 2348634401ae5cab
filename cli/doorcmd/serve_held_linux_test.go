//go:build linux

package doorcmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/linux"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
)

// procStat is what the test reads of /proc/PID/stat: the parent and the
// user CPU time.
func procStat(pid int) (ppid int, utime uint64, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(data[i+1:])) // state ppid pgrp ... utime is the 12th after state
	if len(f) < 12 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	utime, _ = strconv.ParseUint(f[11], 10, 64)
	return ppid, utime, true
}

// workers lists the server's children that are pool workers.
func (s *served) workers(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(pid); !ok || ppid != s.cmd.Process.Pid {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if bytes.Contains(cmdline, []byte(wire.WorkerArg)) {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// waitWorkers waits until the server has n workers.
func (s *served) waitWorkers(t *testing.T, n int) []int {
	t.Helper()
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(20 * time.Millisecond) {
		if w := s.workers(t); len(w) == n {
			return w
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server has workers %v, want %d", s.workers(t), n)
		}
	}
}

// needLandlock skips, saying why, on a kernel where the server cannot
// hold itself.
func needLandlock(t *testing.T) {
	t.Helper()
	if abi, err := linux.LandlockABI(); err != nil || abi < 4 {
		t.Skipf("the server holds itself with Landlock, and a worker reaches full at ABI 4: this kernel has ABI %d (%v)", abi, err)
	}
}

// TestServeHoldsItself watches from outside the server process's own
// Landlock domain: the server says it is held; its /proc status has
// NoNewPrivs; a worker started after it held itself (a replacement for a
// killed one) still reaches full and still reads beneath the import root
// (a load); and the server can no longer open a directory put in the
// import root's place after it started, which it opened well before, and
// which the test itself reads.
func TestServeHoldsItself(t *testing.T) {
	needLandlock(t)
	s := startServe(t, "--workers", "2")
	if !strings.Contains(s.held, "the server process is held") {
		t.Fatalf("the server said %q of its own domain, want that it is held", s.held)
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "NoNewPrivs:\t1") {
		t.Errorf("the server's /proc status has no NoNewPrivs: 1:\n%s", status)
	}
	for name, src := range map[string]string{
		"lib.vel":  "def greet(who):\n    return \"hello, \" + who\n",
		"main.vel": "load(\"lib.vel\", \"greet\")\nprint(greet(\"load\"))\n",
	} {
		if err := os.WriteFile(filepath.Join(s.root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"main.vel"}`)
	if st != 200 || v["stdout"] != "hello, load\n" {
		t.Fatalf("main.vel before any worker was replaced: %d %v", st, v)
	}
	wantFull(t, "a first worker", v["level"])

	first := s.waitWorkers(t, 2)
	for _, pid := range first {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	// A run given to a worker killed while idle goes to a replacement,
	// started inside the server's domain: a worker killed before its job
	// came never begins it, even if a thread the kill woke read it
	// (TestPoolJobUntaken has each case).
	var replaced bool
	for i := 0; i < 6 && !replaced; i++ {
		st, v = s.do(t, "POST", "/v1/run", s.token, `{"path":"main.vel"}`)
		if st != 200 {
			t.Fatalf("main.vel after the workers were killed: %d %v", st, v)
		}
		if v["status"] != "ok" {
			t.Errorf("run %d after the kill: %v %v, want ok on a replacement", i, v["status"], v["code"])
			continue
		}
		now := s.workers(t)
		replaced = len(now) > 0 && !slices.ContainsFunc(now, func(p int) bool { return slices.Contains(first, p) })
		if v["stdout"] != "hello, load\n" {
			t.Errorf("main.vel on a replacement worker: %v", v)
		}
		wantFull(t, "a worker started after the server held itself", v["level"])
	}
	if !replaced {
		t.Fatalf("no run went to a replacement worker: workers %v, the first %v", s.workers(t), first)
	}

	// The import root is held at the directory it was when the server
	// started. Put another in its place: the test reads it, the server
	// may not.
	st, v = s.do(t, "POST", "/v1/audit", s.token, `{"path":"hello.vel"}`)
	if st != 200 {
		t.Fatalf("audit hello.vel before the swap (the control): %d %v", st, v)
	}
	if err := os.Rename(s.root, s.root+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(filepath.Join(s.root, "hello.vel")); err != nil {
		t.Fatalf("the test cannot read the new hello.vel: %v", err)
	}
	st, v = s.do(t, "POST", "/v1/audit", s.token, `{"path":"hello.vel"}`)
	e, _ := v["error"].(map[string]any)
	msg, _ := e["message"].(string)
	do, _ := e["do"].(string)
	if st != 403 || e["code"] != "E316" || !strings.Contains(msg, "permission denied") ||
		!strings.Contains(msg, "not the directory the server started with") ||
		!strings.Contains(do, "restarts it") {
		t.Errorf("audit hello.vel in a directory the server was not granted: %d %v, want 403 E316 "+
			"permission denied, saying the root was replaced and to restart the server", st, v)
	}
	st, v = s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
	e, _ = v["error"].(map[string]any)
	if do, _ := e["do"].(string); st != 403 || e["code"] != "E316" || !strings.Contains(do, "restarts it") {
		t.Errorf("run hello.vel in a directory the server was not granted: %d %v, want 403 E316 "+
			"saying to restart the server", st, v)
	}
}

// TestServeWorkerKilled kills the worker of a request in flight: the
// client still gets a 200 whose status is killed (E309), the run's
// receipt is stored, and the next runs go on, full, one of them on a
// worker started in the killed one's place.
func TestServeWorkerKilled(t *testing.T) {
	needLandlock(t)
	s := startServe(t, "--workers", "2", "--timeout", "60s")
	first := s.waitWorkers(t, 2)
	answered := s.runAsync(`{"source":"def spin():\n    n = 0\n    for i in range(2000000000):\n        n += i\n    return n\nprint(spin())\n"}`)
	// The busy worker is the one whose CPU time grows.
	var busy int
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); busy == 0; {
		before := map[int]uint64{}
		for _, pid := range first {
			_, u, _ := procStat(pid)
			before[pid] = u
		}
		time.Sleep(200 * time.Millisecond)
		var most uint64 = 1 // an idle worker gains no tick
		for _, pid := range first {
			if _, u, ok := procStat(pid); ok && u-before[pid] > most {
				busy, most = pid, u-before[pid]
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no worker became busy")
		}
	}
	if err := syscall.Kill(busy, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var a runAnswer
	select {
	case a = <-answered:
	case <-time.After(testkit.Bound(30 * time.Second)):
		t.Fatal("the request whose worker was killed got no answer")
	}
	if a.status != 200 || a.reply["status"] != "killed" || a.reply["code"] != "E309" {
		t.Fatalf("the request whose worker was killed: %d %v %v %v, want 200 killed E309", a.status, a.reply["status"], a.reply["code"], a.reply["message"])
	}
	id, _ := a.reply["run_id"].(string)
	if got, err := receipt.Find(s.rc, id); err != nil || got.RunID != id || got.Outcome.Status != "killed" {
		t.Errorf("the killed run %s: its stored receipt %v (%v), want it there, saying killed", id, got.Receipt, err)
	}
	var replaced bool
	for i := 0; i < 6 && !replaced; i++ {
		st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
		if st != 200 || v["status"] != "ok" || v["stdout"] != "hello, world\n" {
			t.Fatalf("run %d after the kill: %d %v", i, st, v)
		}
		wantFull(t, "a run after the kill", v["level"])
		now := s.workers(t)
		replaced = slices.ContainsFunc(now, func(p int) bool { return !slices.Contains(first, p) })
		if slices.Contains(now, busy) {
			t.Fatalf("the killed worker %d is still listed: %v", busy, now)
		}
	}
	if !replaced {
		t.Errorf("no worker replaced the killed %d: workers %v", busy, s.workers(t))
	}
}

// TestMCPHoldsItself: sabline mcp holds its own process as serve does:
// it says so, its /proc status has NoNewPrivs, and a run in it is still
// full.
func TestMCPHoldsItself(t *testing.T) {
	needLandlock(t)
	bin := sablineBin(t)
	root, rc, tmp := doorDirs(t)
	cmd := exec.Command(bin, "mcp", "--import-root", root, "--allow", "io", "--receipts", rc)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr testkit.LockedBuffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := mcpHello(t, cs, "through a held sabline mcp")
	wantFull(t, "hello.vel through a held sabline mcp", out.Level)
	if !strings.Contains(stderr.String(), "sabline mcp: the server process is held") {
		t.Errorf("sabline mcp said %q, want that it is held", stderr.String())
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "NoNewPrivs:\t1") {
		t.Errorf("sabline mcp's /proc status has no NoNewPrivs: 1")
	}
}

// doorDirs makes, in a directory of the test's, an import root holding
// hello.vel and a temporary directory for the door, and names its
// receipts directory beside them.
func doorDirs(t *testing.T) (root, rc, tmp string) {
	t.Helper()
	dir := t.TempDir()
	root, rc, tmp = filepath.Join(dir, "root"), filepath.Join(dir, "receipts"), filepath.Join(dir, "tmp")
	for _, d := range []string{root, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hello := []byte("print(\"hello, world\")\n")
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), hello, 0o644); err != nil {
		t.Fatal(err)
	}
	return root, rc, tmp
}
