//go:build windows

package lang

import (
	"os"
	"os/exec"
)

func shellCommand(c string) *exec.Cmd { return exec.Command("cmd.exe", "/C", c) }

// nativeWrite creates or truncates path and writes data.
func nativeWrite(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
