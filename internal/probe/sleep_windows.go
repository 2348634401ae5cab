package probe

import "os/exec"

// sleepCommand is a process for the probe to end.
func sleepCommand() *exec.Cmd { return exec.Command("ping", "-n", "60", "127.0.0.1") }
