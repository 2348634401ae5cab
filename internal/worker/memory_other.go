//go:build !linux

package worker

import "runtime/metrics"

// memoryGauge returns the memory watch's measure: what the Go runtime
// holds from the system less what it gave back, the total its soft limit
// counts (runtime/metrics, which stops no goroutine). Linux's counts the
// process's own resident memory instead (memory_linux.go).
func memoryGauge() func() uint64 {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	return func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() - samples[1].Value.Uint64()
	}
}
