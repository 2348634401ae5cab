//go:build !linux

package confine

// WorkerCgroups: cgroups are Linux's; a worker's memory limit is its own
// here (and its job object's on Windows).
func WorkerCgroups() string { return "" }
