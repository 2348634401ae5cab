//go:build !windows

package probe

import (
	"os/exec"
	"testing"
)

// TestSleepCommandWithoutPATH: the process the probe signals starts with
// PATH empty or unset, from the system's directories, where sabline
// doctor failed (E310, "sleep": executable file not found in $PATH); the
// control, PATH naming sleep's directory, starts it as before.
func TestSleepCommandWithoutPATH(t *testing.T) {
	found := ""
	for _, d := range systemPath {
		if p, err := exec.LookPath(d + "/sleep"); err == nil {
			found = p
			break
		}
	}
	if found == "" {
		t.Skipf("no sleep(1) in %v on this machine to start", systemPath)
	}
	for _, tc := range []struct{ name, path string }{
		{name: "PATH empty", path: ""},
		{name: "PATH naming nothing", path: t.TempDir()},
		{name: "control: PATH naming sleep's directory", path: "/usr/bin:/bin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			cmd := sleepCommand()
			if err := cmd.Start(); err != nil {
				t.Fatalf("PATH=%q: start %v: %v", tc.path, cmd.Args, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Error(err)
			}
			_ = cmd.Wait()
		})
	}
}
