package worker

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestGiveBackWhileItGivesBack: a pool worker's give-back after a job
// collects again while each collection gives some back and the worker
// holds more than its floor, up to maxGiveBacks times (a deep
// recursion's stack halves at each), and stops at once when one gives
// nothing back. The controls: a worker at its floor collects nothing, and
// one whose collection gives nothing back collects once.
func TestGiveBackWhileItGivesBack(t *testing.T) {
	for _, tt := range []struct {
		name      string
		held      func(reads int) uint64
		floor     uint64
		wantReads int
	}{
		{"each collection gives back", func(n int) uint64 { return 1000 - uint64(n) }, 0,
			1 + maxGiveBacks},
		{"a collection gives nothing back", func(int) uint64 { return 1000 }, 0, 2},
		{"at its floor", func(int) uint64 { return 1000 }, 1000, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reads := 0
			l := &leftover{floor: tt.floor, held: func() uint64 {
				reads++
				return tt.held(reads)
			}}
			l.giveBack()
			if reads != tt.wantReads {
				t.Errorf("%d reads of the gauge, want %d", reads, tt.wantReads)
			}
		})
	}
}

// TestHeldGaugeFallsWhenGivenBack: what heldGauge reads falls when the
// runtime gives memory back to the system: giveBack stops once a
// collection gives nothing back by it, so a gauge that counted what was
// given back stopped at the first collection. The control: it rises by
// what a live allocation holds.
func TestHeldGaugeFallsWhenGivenBack(t *testing.T) {
	const size = 64 << 20
	gauge := heldGauge()
	debug.FreeOSMemory()
	before := gauge()
	b := make([]byte, size)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	held := gauge()
	runtime.KeepAlive(b)
	b = nil
	debug.FreeOSMemory()
	after := gauge()
	if held < before+size/2 {
		t.Fatalf("the control: %d bytes held with %d MiB live, %d before", held, size>>20, before)
	}
	if after > held-size/2 {
		t.Errorf("%d bytes held after the give-back, %d before it: want %d MiB fewer", after,
			held, size>>21)
	}
}
