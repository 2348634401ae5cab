//go:build !linux

package run

import "os"

// workerExecutable is the file a supervisor starts its workers from: the
// path os.Executable gives (Linux starts its own image, exe_linux.go).
func workerExecutable() (string, error) { return os.Executable() }
