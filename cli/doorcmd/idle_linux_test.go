package doorcmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sabline/sabline/internal/testkit/proc"
)

// idleWindow and maxIdleTicks: an idle worker blocks in the kernel,
// waiting for its next job, and uses no CPU; a few ticks are allowed for
// what the kernel charges it anyway. The bound is in clock ticks of the
// worker's own CPU, read from /proc, which a loaded machine does not
// raise the way it stretches wall time.
const (
	idleWindow   = 5 * time.Second
	maxIdleTicks = 2
)

// workerTicks returns each pid's ticks of CPU (user and system).
func workerTicks(t *testing.T, pids []int) map[int]int64 {
	t.Helper()
	ticks := map[int]int64{}
	for _, pid := range pids {
		n, err := proc.CPUTicks(pid)
		if err != nil {
			t.Fatalf("worker %d: %v", pid, err)
		}
		ticks[pid] = n
	}
	return ticks
}

// wantIdleFree checks that each of pids uses at most maxIdleTicks over
// idleWindow in which nothing is sent to it.
func wantIdleFree(t *testing.T, what string, pids []int) {
	t.Helper()
	if len(pids) == 0 {
		t.Fatalf("%s: no worker to watch", what)
	}
	before := workerTicks(t, pids)
	time.Sleep(idleWindow)
	after := workerTicks(t, pids)
	for _, pid := range pids {
		used := after[pid] - before[pid]
		t.Logf("%s: idle worker %d used %d ticks of CPU in %s", what, pid, used, idleWindow)
		if used > maxIdleTicks {
			t.Errorf("%s: idle worker %d used %d ticks of CPU in %s, want at most %d", what, pid, used, idleWindow, maxIdleTicks)
		}
	}
}

// TestServeIdleWorkers: the workers of sabline serve (with the doors'
// default memory limit), having served a run, use no CPU while they wait
// for the next. The control: the same count of ticks grows while a
// worker runs a busy program.
func TestServeIdleWorkers(t *testing.T) {
	s := startServe(t, "--workers", "2", "--max-memory-mb", "256")
	if st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`); st != 200 || v["stdout"] != "hello, world\n" {
		t.Fatalf("run hello.vel: %d %v", st, v)
	}
	pids := proc.Workers(s.cmd.Process.Pid)
	if len(pids) != 2 {
		t.Fatalf("workers %v, want the two --workers starts", pids)
	}
	wantIdleFree(t, "sabline serve", pids)

	before := workerTicks(t, pids)
	busy := `{"source":"n = 0\nfor i in range(3000000):\n    n += i\nprint(n)\n"}`
	if st, v := s.do(t, "POST", "/v1/run", s.token, busy); st != 200 || v["status"] != "ok" {
		t.Fatalf("run a busy program: %d %v", st, v)
	}
	after := workerTicks(t, pids)
	var used int64
	for _, pid := range pids {
		used += after[pid] - before[pid]
	}
	if used <= maxIdleTicks {
		t.Errorf("the workers used %d ticks running a busy program: the count does not see a busy worker", used)
	}
}

// TestMCPIdleWorkers: sabline mcp starts no worker before its first run;
// the worker that run starts (with the doors' default memory limit) uses
// no CPU while it waits for the next.
func TestMCPIdleWorkers(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(\"hello, world\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--import-root", root, "--allow", "io", "--receipts", filepath.Join(dir, "receipts"),
		"--workers", "2", "--max-memory-mb", "256")
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if pids := proc.Workers(cmd.Process.Pid); len(pids) != 0 {
		t.Fatalf("workers %v before the first run, want none", pids)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"path": "hello.vel"}})
	if err != nil || res.IsError {
		t.Fatalf("run: %v %v", err, res)
	}
	pids := proc.Workers(cmd.Process.Pid)
	if len(pids) != 1 {
		t.Fatalf("workers %v after the first run, want the one it started", pids)
	}
	wantIdleFree(t, "sabline mcp", pids)
}
