//go:build !linux

package run

// unlinkedHeld counts nothing where the system does not list a process's
// descriptors and mappings as Linux's /proc does (unlinked_linux.go).
func unlinkedHeld(pid int, dev uint64) int64 { return 0 }

// deviceOf: no device is read where unlinkedHeld counts nothing.
func deviceOf(dir string) (uint64, bool) { return 0, false }
