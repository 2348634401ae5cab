//go:build unix

package testkit

import "syscall"

// Mkfifo makes a named pipe at path, mode 0644.
func Mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
