//go:build !unix

package testkit

// TakeIgnoredStops does nothing where a process has no inherited
// SIGHUP or SIGINT to ignore (signals_unix.go).
func TakeIgnoredStops() {}
