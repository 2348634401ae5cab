//go:build !linux

package worker

// memoryGauge returns the memory watch's measure: what the Go runtime
// holds (runtimeGauge). Linux's counts the process's own resident memory
// instead (memory_linux.go).
func memoryGauge() func() uint64 { return runtimeGauge() }
