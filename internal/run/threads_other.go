//go:build !linux

package run

// threadsOf reads nothing where the system has no status file of a
// process as Linux's /proc does (threads_linux.go): the worker's threads
// are not bounded from outside there.
func threadsOf(pid int) (int, bool) { return 0, false }
