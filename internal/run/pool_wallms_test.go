package run

import (
	"context"
	"testing"
	"time"

	"github.com/sabline/sabline/receipt"
)

// TestPoolWallMSIsNotTheWallClocks: a pooled run's wall_ms is the time
// it took, on the monotonic clock, whatever the wall clock did meanwhile.
// Its receipt's start is the wall clock's, in UTC, with no monotonic
// reading, and wall_ms was measured from it: a wall clock stepped an hour
// forward during the run made wall_ms 3,600,000 and more, one stepped
// back made it negative. The steps are the pool's wall clock read an hour
// behind and an hour ahead at the start, as the machine's reads once
// stepped the other way; the receipt is read back from the journal on
// the disk. The control: the clock as it is. In each, wall_ms is within
// the time the test saw the run take.
func TestPoolWallMSIsNotTheWallClocks(t *testing.T) {
	p, rc := helloPool(t)
	for _, tt := range []struct {
		name string
		step time.Duration // how far the wall clock is stepped during the run
	}{
		{name: "stepped an hour forward", step: time.Hour},
		{name: "stepped an hour back", step: -time.Hour},
		{name: "not stepped (control)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p.wallClock = func() time.Time { return time.Now().Add(-tt.step) }
			began := time.Now()
			res, err := p.Run(context.Background(), PoolRun{Program: "hello.vel"})
			took := time.Since(began)
			if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
				t.Fatalf("the run: %v, %+v", err, res.Receipt.Outcome)
			}
			stored, err := receipt.FindRun(rc, res.Receipt.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if ms := stored.Timings.WallMS; ms < 0 || ms > receipt.MS(took) {
				t.Errorf("wall_ms %v on the disk, want 0 to %v: the run took %v", ms,
					receipt.MS(took), took)
			}
		})
	}
}
