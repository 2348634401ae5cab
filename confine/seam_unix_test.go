//go:build unix

package confine

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"

	"github.com/sabline/sabline/confine/core"
)

// TestStartedKill: Kill, which the supervisor calls once the worker has
// exited or must be stopped, ends a worker still running (of SIGKILL),
// and is no error for one that has exited and been waited for.
func TestStartedKill(t *testing.T) {
	tests := []struct {
		name      string
		script    string
		waitFirst bool // the worker has exited and been waited for before Kill
	}{
		{name: "a worker still running", script: "exec sleep 60"},
		{name: "a worker already waited for", script: "exit 0", waitFirst: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", "-c", tt.script)
			s, err := PrepareWorker(cmd, core.Policy{}, WorkerOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start(); err != nil {
				t.Fatal(err)
			}
			waited := false
			t.Cleanup(func() {
				if !waited {
					_ = cmd.Process.Kill()
					_ = cmd.Wait()
				}
				_ = s.Close()
			})
			if tt.waitFirst {
				waited = true
				if err := cmd.Wait(); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Kill(); err != nil {
				t.Fatalf("Kill = %v, want nil", err)
			}
			if tt.waitFirst {
				return
			}
			waited = true
			var exit *exec.ExitError
			if err := cmd.Wait(); !errors.As(err, &exit) {
				t.Fatalf("Wait = %v, want the worker ended", err)
			}
			ws, _ := exit.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("the worker ended as %v, want of SIGKILL", exit)
			}
		})
	}
}
