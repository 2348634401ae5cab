//go:build !linux

package run

// unlinkedHeld counts nothing where the system does not list a process's
// descriptors and mappings as Linux's /proc does (unlinked_linux.go).
func unlinkedHeld(pid int, dev uint64) (int64, bool) { return 0, true }

// deviceOf: no device is read where unlinkedHeld counts nothing.
func deviceOf(dir string) (uint64, bool) { return 0, false }

// maxHeldScanned is Linux's bound (unlinked_linux.go), which
// tempDirWithin names; nothing is scanned here.
const maxHeldScanned = 4096
