package promtext

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessCPUIsTheProcesss holds process_cpu_seconds_total to the
// processor time the process used: while one goroutine works, it grows by
// that work (the control) and by no more than the process's own time,
// whatever GOMAXPROCS is. Before, it was the Go runtime's
// /cpu/classes/total:cpu-seconds, GOMAXPROCS times the time lived: it grew
// by eight times the time the work took here, busy or not.
func TestProcessCPUIsTheProcesss(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skip("this system does not say what processor time a process used")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	r := New()
	r.GoRuntime()
	scrape := func() float64 {
		fam := parse(t, r)["process_cpu_seconds_total"]
		if fam == nil {
			t.Fatal("no process_cpu_seconds_total")
		}
		return fam.GetMetric()[0].GetCounter().GetValue()
	}
	before, _ := processCPU()
	m0 := scrape()
	const work = 100 * time.Millisecond
	for { // work until the kernel counts it, however loaded the machine
		if now, _ := processCPU(); now-before >= work {
			break
		}
	}
	m1 := scrape()
	after, _ := processCPU()
	grew, used := m1-m0, (after - before).Seconds()
	if grew < work.Seconds()/2 {
		t.Errorf("process_cpu_seconds_total grew %.3fs while the process worked %v", grew, work)
	}
	if grew > used+0.01 {
		t.Errorf("process_cpu_seconds_total grew %.3fs, past the %.3fs the process used", grew, used)
	}
}
