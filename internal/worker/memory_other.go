//go:build !linux

package worker

import "runtime/metrics"

// memoryGauge returns the memory watch's measure: what the Go runtime
// holds (runtimeGauge). Linux's counts the process's own resident memory
// instead (memory_linux.go).
func memoryGauge() func() uint64 { return runtimeGauge() }

// heldGauge returns a pool worker's measure of what a job left: what the
// Go runtime holds (runtimeGauge).
func heldGauge() func() uint64 { return runtimeGauge() }

// runtimeGauge returns a measure of what the Go runtime holds from the
// system less what it gave back, the total its soft limit counts
// (runtime/metrics, which stops no goroutine and makes no system call).
// On Linux the sabline binary does without runtime/metrics, whose
// initialisation every start of it would pay.
func runtimeGauge() func() uint64 {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	return func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() - samples[1].Value.Uint64()
	}
}
