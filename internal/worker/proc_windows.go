//go:build windows

package worker

import (
	"os"
	"runtime/debug"
)

// crashToFile sends the Go runtime's crash report to f as well; Windows
// has no descriptor to swap, so the report reaches standard error too.
func crashToFile(f *os.File) error { return debug.SetCrashOutput(f, debug.CrashOptions{}) }

// closeInherited: a Windows worker inherits only the handles passPipes
// lists (StartProcess passes exactly those), so there is nothing to close.
func closeInherited() error { return nil }
func closeOnExec(uintptr)   {}

// narrowUmask: Windows has no umask; a file a run makes takes its
// directory's ACL.
func narrowUmask() {}

// pollable: a Windows worker's pipe is read by a thread that waits in the
// read; nothing to change.
func pollable(uintptr) {}
