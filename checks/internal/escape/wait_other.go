//go:build !linux

package escape

import "os/exec"

// waitGroup waits for cmd and then kills what stayed in its process
// group.
func waitGroup(cmd *exec.Cmd) error {
	err := cmd.Wait()
	killGroup(cmd)
	return err
}
