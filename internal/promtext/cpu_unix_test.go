//go:build unix

package promtext

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestProcessCPUCountsTheKernelsTime holds process_cpu_seconds_total to
// the processor time the kernel spent for the process too: while the
// process reads /dev/zero, which the kernel works at (clearing the
// buffer it reads into), it grows by that system time, as getrusage(2)
// counts it. The control is TestProcessCPUIsTheProcesss, whose work is
// the process's own.
func TestProcessCPUCountsTheKernelsTime(t *testing.T) {
	if _, ok := processCPU(); !ok {
		t.Skip("this system does not say what processor time a process used")
	}
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Skipf("no /dev/zero to have the kernel work at: %v", err)
	}
	defer zero.Close()
	system := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Stime.Nano())
	}
	r := New()
	r.GoRuntime()
	scrape := func() float64 {
		fam := parse(t, r)["process_cpu_seconds_total"]
		if fam == nil {
			t.Fatal("no process_cpu_seconds_total")
		}
		return fam.GetMetric()[0].GetCounter().GetValue()
	}
	m0 := scrape()
	before := system()
	const work = 200 * time.Millisecond
	buf := make([]byte, 1<<20)
	for system()-before < work { // until the kernel counts it, however loaded the machine
		if _, err := zero.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	spent := system() - before
	if grew := scrape() - m0; grew < spent.Seconds() {
		t.Errorf("process_cpu_seconds_total grew %.3fs while the kernel worked %.3fs for the "+
			"process", grew, spent.Seconds())
	}
}
