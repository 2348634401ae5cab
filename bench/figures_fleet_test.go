//go:build unix

package bench

import (
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit/fleettest"
)

// answers is n answers of status, each taking each, sent one after
// another from start.
func answers(n, status int, each time.Duration) []fleettest.Answer {
	start := time.Unix(1_800_000_000, 0)
	out := make([]fleettest.Answer, n)
	for i := range out {
		sent := start.Add(time.Duration(i) * each)
		out[i] = fleettest.Answer{Status: status, Sent: sent, Done: sent.Add(each)}
	}
	return out
}

// TestFleetReport: BenchmarkFleet's ns/op is its wall time over the runs
// it sent, not over b.N (which it bounds: 16 runs were sent at
// -benchtime 4x and reported as 4); runs/s counts the runs answered 200
// alone; and an answer that is not a 200 fails the benchmark, which then
// reports no figure, as BenchmarkServeHello's failures do. The control:
// 16 runs answered 200 in 32 ms are 500 runs/s and 2 ms an op.
func TestFleetReport(t *testing.T) {
	got, failed := figures(func(b *testing.B) { report(b, answers(16, 200, 2*time.Millisecond), 32*time.Millisecond) })
	if failed {
		t.Fatal("16 runs answered 200: the benchmark failed")
	}
	if !near(got["ns/op"], 2e6) || !near(got["runs/s"], 500) || got["failures"] != 0 {
		t.Errorf("16 runs answered 200 in 32 ms: ns/op %v, runs/s %v, failures %v; want 2e6, 500, 0",
			got["ns/op"], got["runs/s"], got["failures"])
	}
	// 8 runs, and 8 refusals answered at once: 8 runs in the 16 ms.
	mixed := append(answers(8, 200, 2*time.Millisecond), answers(8, 429, 0)...)
	got, failed = figures(func(b *testing.B) { report(b, mixed, 16*time.Millisecond) })
	if !failed {
		t.Errorf("8 of 16 answers 429: the benchmark passed, runs/s %v (8 runs in 16 ms are 500)",
			got["runs/s"])
	}
}
