package bench

import (
	"math"
	"os"
	"testing"
	"time"
)

// The tests here hold the benchmarks' arithmetic to what their figures are
// named: each part that reports is run as a benchmark of its own
// (testing.Benchmark) over counts made up for it, and its figures read
// back. A benchmark that fails reports none: testing.Benchmark then
// gives a result of no iterations.

// figures runs report as a benchmark and returns what it reported, and
// whether it failed.
func figures(report func(b *testing.B)) (map[string]float64, bool) {
	r := testing.Benchmark(report)
	if r.N == 0 {
		return nil, true
	}
	extra := map[string]float64{"ns/op": float64(r.NsPerOp())}
	for k, v := range r.Extra {
		extra[k] = v
	}
	return extra, false
}

// near says whether got is want, but for the float's rounding.
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }

// tallyOf is a tally of ok runs ended ok in took.
func tallyOf(ok int64, took time.Duration) *tally {
	t := &tally{elapsed: took}
	t.ok.Store(ok)
	return t
}

// TestServeRatios: each ratio BenchmarkServeHello reports is the runs a
// second of the server its name gives first over the other's, as its own
// runs/s figures give them: the flush server's 50 runs/s over the first
// server's 100 is 0.5 (it was reported as 2, the first's over the
// flush's), beside the twin's and the floor's ratios, which were right.
func TestServeRatios(t *testing.T) {
	tallies := []*tally{
		tallyOf(100, time.Second),           // the first server, background: 100 runs/s
		tallyOf(100, 2*time.Second),         // flush: 50 runs/s
		tallyOf(100, 1250*time.Millisecond), // the twin, before: 80 runs/s
		tallyOf(200, 500*time.Millisecond),  // the floor: 400 runs/s
	}
	got, failed := figures(func(b *testing.B) { serveRatios(b, tallies, 2, 3) })
	if failed {
		t.Fatal("serveRatios failed")
	}
	for name, want := range map[string]float64{
		"runs/s-flush/background": 0.5,
		"runs/s-after/before":     1.25,
		"runs/s-door/floor":       0.25,
	} {
		if !near(got[name], want) {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
	// Without a twin, no after/before.
	got, _ = figures(func(b *testing.B) { serveRatios(b, []*tally{tallies[0], tallies[1], tallies[3]}, -1, 2) })
	if _, ok := got["runs/s-after/before"]; ok || !near(got["runs/s-flush/background"], 0.5) {
		t.Errorf("without a twin: %v, want flush/background 0.5 and no after/before", got)
	}
}

// TestProcessorTimeOfNoProcess: the processor time of no process, or the
// context switches of none, is no figure (false), not 0: an idle pool read
// with no worker would report 0 idle ticks. The control: this process's
// are read.
func TestProcessorTimeOfNoProcess(t *testing.T) {
	if n, ok := cpuTicks(); ok {
		t.Errorf("cpuTicks() of no process = %d, true: want false", n)
	}
	if n, ok := switches(); ok {
		t.Errorf("switches() of no process = %d, true: want false", n)
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here: ", err)
	}
	if _, ok := cpuTicks(os.Getpid()); !ok {
		t.Error("cpuTicks of this process: not read")
	}
	if n, ok := switches(os.Getpid()); !ok || n <= 0 {
		t.Errorf("switches of this process = %d, %v: want some, read", n, ok)
	}
	_, failed := figures(func(b *testing.B) { idleTicks(b, nil, time.Millisecond) })
	if !failed {
		t.Error("idleTicks of no worker reported a figure, want the benchmark failed")
	}
}

// TestPercentiles: a p99 is reported of 100 times or more, not of fewer
// (BenchmarkStop's default second made five, and reported the slowest as
// its p99); the median is reported of any. The control: of 200 times,
// 1 to 200 ms, the p99 is the 199th, 199 ms.
func TestPercentiles(t *testing.T) {
	ms := func(n int) []time.Duration {
		d := make([]time.Duration, n)
		for i := range d {
			d[i] = time.Duration(n-i) * time.Millisecond // slowest first: percentiles sorts
		}
		return d
	}
	got, failed := figures(func(b *testing.B) { percentiles(b, "cancel", ms(5)) })
	if p99, ok := got["cancel-p99-ms"]; failed || ok || got["cancel-p50-ms"] != 3 {
		t.Errorf("of 5 times: p99 %v (reported %v), p50 %v, failed %v; want no p99, p50 3",
			p99, ok, got["cancel-p50-ms"], failed)
	}
	got, failed = figures(func(b *testing.B) { percentiles(b, "cancel", ms(200)) })
	if failed || got["cancel-p99-ms"] != 199 || got["cancel-p50-ms"] != 101 {
		t.Errorf("of 200 times: p99 %v, p50 %v, failed %v; want 199 and 101",
			got["cancel-p99-ms"], got["cancel-p50-ms"], failed)
	}
}
