package confine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// TestWorkerMemoryCgroup: where this machine lets a supervisor make a
// worker a cgroup of its own, the worker is moved into it before it runs,
// the kernel ends it past memory.max and says so, and the cgroup is gone
// once it is closed; a process within the limit ends by itself (the
// control).
func TestWorkerMemoryCgroup(t *testing.T) {
	if linux.WorkerCgroups() == "" {
		t.Skipf("this machine gives a worker no memory cgroup: %s", linux.WorkerCgroupsWhy())
	}
	tests := []struct {
		name    string
		argv    []string // tail keeps a line of /dev/zero, which never ends
		wantOOM bool
	}{
		{name: "past memory.max", argv: []string{"tail", "/dev/zero"}, wantOOM: true},
		{name: "within it", argv: []string{"head", "-c", "1000000", "/dev/zero"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(tt.argv[0], tt.argv[1:]...)
			s, err := PrepareWorker(cmd, core.Policy{}, WorkerOptions{MaxMemoryMB: 32})
			if err != nil || s.Memory().By != linux.CgroupHolds {
				t.Fatalf("PrepareWorker: %v, memory %+v: want a cgroup", err, s.Memory())
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			if err := s.AfterStart(cmd.Process.Pid); err != nil {
				t.Fatal(err)
			}
			dir := s.(*processStarted).cgroup.(*linux.MemoryCgroup).Dir()
			if max, err := os.ReadFile(filepath.Join(dir, "memory.max")); err != nil || strings.TrimSpace(string(max)) != "33554432" {
				t.Errorf("memory.max %q, %v: want 32 MB", max, err)
			}
			if in, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/cgroup"); err == nil && !strings.Contains(string(in), "/"+filepath.Base(dir)) {
				t.Errorf("the process is in %q, want %s", in, dir)
			}
			err = cmd.Wait()
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if killed := ws.Signaled() && ws.Signal() == syscall.SIGKILL; killed != tt.wantOOM || s.OutOfMemory() != tt.wantOOM {
				t.Errorf("ended %v (killed %v), out of memory %v: want %v", err, killed, s.OutOfMemory(), tt.wantOOM)
			}
			s.Close()
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("%s after Close: %v, want it removed", dir, err)
			}
		})
	}
}
