package escape

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitGroup waits for cmd to exit, kills what stayed in its process
// group, and reaps it. The group is killed while cmd is a zombie not yet
// reaped, so that its number cannot have been given to another group.
func waitGroup(cmd *exec.Cmd) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	killGroup(cmd)
	return cmd.Wait()
}
