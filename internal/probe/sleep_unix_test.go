//go:build !windows

package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSleepCommandWithoutPATH: the process the probe signals starts with
// PATH empty or unset, from the system's directories, where sabline
// doctor failed (E310, "sleep": executable file not found in $PATH); the
// control, PATH naming sleep's directory, starts it as before.
func TestSleepCommandWithoutPATH(t *testing.T) {
	systemSleep(t) // skipped where the system has none
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

// TestSleepCommandPassesOverANonExecutable: with PATH empty, a file named
// sleep that no one may execute, in the first of the system's
// directories, is passed over for the sleep(1) of the next, where the
// probe's start failed ("permission denied"). The control: an executable
// sleep there is the one started.
func TestSleepCommandPassesOverANonExecutable(t *testing.T) {
	found := systemSleep(t)
	for _, tc := range []struct {
		name string
		mode os.FileMode
		want string // the sleep started: "first" for the one in the first directory
	}{
		{name: "not executable", mode: 0o644, want: found},
		{name: "control: executable", mode: 0o755, want: "first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := t.TempDir()
			decoy := filepath.Join(first, "sleep")
			text := "#!/bin/sh\nexec " + found + " \"$@\"\n"
			if err := os.WriteFile(decoy, []byte(text), tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(decoy, tc.mode); err != nil { // past the umask
				t.Fatal(err)
			}
			was := systemPath
			systemPath = append([]string{first}, was...)
			t.Cleanup(func() { systemPath = was })
			t.Setenv("PATH", "")
			cmd := sleepCommand()
			want := tc.want
			if want == "first" {
				want = decoy
			}
			if cmd.Path != want {
				t.Errorf("sleepCommand starts %s, want %s", cmd.Path, want)
			}
			if err := cmd.Start(); err != nil {
				t.Fatalf("start %v: %v", cmd.Args, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Error(err)
			}
			_ = cmd.Wait()
		})
	}
}

// systemSleep is the sleep(1) of the first of the system's directories
// that has one; t is skipped, saying why, where none has.
func systemSleep(t *testing.T) string {
	t.Helper()
	for _, d := range systemPath {
		if p, err := exec.LookPath(d + "/sleep"); err == nil {
			return p
		}
	}
	t.Skipf("no sleep(1) in %v on this machine to start", systemPath)
	return ""
}
