package bench

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// faultSink keeps the reads of BenchmarkPageFault's file pages from being
// left out by the compiler.
var faultSink byte

// BenchmarkPageFault: what the kernel takes to give a process a page of
// memory, the price of every page a process start touches first (the Go
// runtime's heap, stacks and metadata, each package's initialisation; the
// binary's code and read-only data a fault-around block at a time). In
// each iteration, side by side: 1,024 fresh anonymous pages touched one
// by one, each a page fault (fault-ns/page); the same number made present
// by one madvise(MADV_POPULATE_WRITE) (populate-ns/page); and the sabline
// binary, in the page cache, mapped and touched once every 64 KB
// (file-ns/64KB: a fault maps the pages around the one touched, 64 KB or
// more, so a touch is at most a fault). fault/populate is what a fault
// costs over the kernel's work for the same page.
func BenchmarkPageFault(b *testing.B) {
	faultSink = 0
	const pages = 1024
	page := os.Getpagesize()
	bin, err := os.Open(sabline(b))
	if err != nil {
		b.Fatal(err)
	}
	defer bin.Close()
	st, err := bin.Stat()
	if err != nil {
		b.Fatal(err)
	}
	binSize := int(st.Size()) &^ (page - 1)
	anon := func() []byte {
		m, err := unix.Mmap(-1, 0, pages*page, unix.PROT_READ|unix.PROT_WRITE,
			unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	var faulted, populated, touched time.Duration
	var touches int
	b.ResetTimer()
	for range b.N {
		m := anon()
		t0 := time.Now()
		for i := 0; i < len(m); i += page {
			m[i] = 1
		}
		faulted += time.Since(t0)
		unix.Munmap(m)

		m = anon()
		t0 = time.Now()
		if err := unix.Madvise(m, unix.MADV_POPULATE_WRITE); err != nil {
			b.Skipf("madvise(MADV_POPULATE_WRITE): %v (Linux 5.14 has it)", err)
		}
		populated += time.Since(t0)
		unix.Munmap(m)

		f, err := unix.Mmap(int(bin.Fd()), 0, binSize, unix.PROT_READ, unix.MAP_PRIVATE)
		if err != nil {
			b.Fatal(err)
		}
		t0 = time.Now()
		for i := 0; i < len(f); i += 64 << 10 {
			faultSink += f[i]
			touches++
		}
		touched += time.Since(t0)
		unix.Munmap(f)
	}
	b.StopTimer()
	n := float64(b.N * pages)
	b.ReportMetric(float64(faulted.Nanoseconds())/n, "fault-ns/page")
	b.ReportMetric(float64(populated.Nanoseconds())/n, "populate-ns/page")
	b.ReportMetric(faulted.Seconds()/populated.Seconds(), "fault/populate")
	b.ReportMetric(float64(touched.Nanoseconds())/float64(touches), "file-ns/64KB")
}
