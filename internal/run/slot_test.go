package run

import (
	"testing"
	"time"
)

// TestSlotIdleTimer: a slot's idle timer retires its worker past MaxIdle,
// but a timer of an earlier wait, which fired as a run took the slot and
// ran once the run had given it back, retires nothing: the worker has
// waited since only as long as its new timer says. Read from the slot
// and from the worker's kills.
func TestSlotIdleTimer(t *testing.T) {
	for _, tt := range []struct {
		name        string
		stale       bool
		wantRetired bool
	}{
		{name: "a timer of an earlier wait", stale: true, wantRetired: false},
		{name: "control: the timer of this wait", stale: false, wantRetired: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			proc, c, _ := heldOpen(t)
			p := &Pool{cfg: PoolConfig{IdleTimeout: time.Hour, MaxIdle: -1},
				slots: make(chan *slot, 1), pids: map[int]bool{}}
			s := &slot{w: &poolWorker{workerProc: proc}}
			s.release(p)
			<-p.slots
			earlier := s.gen
			s.w = s.take(p) // a run took it, and gives it back
			s.release(p)
			gen := s.gen
			if tt.stale {
				gen = earlier
			}
			s.idled(p, gen)
			if retired := s.w == nil; retired != tt.wantRetired {
				t.Errorf("retired %v, want %v", retired, tt.wantRetired)
			}
			if killed := c.kills.Load() > 0; killed != tt.wantRetired {
				t.Errorf("the worker killed %v, want %v", killed, tt.wantRetired)
			}
			s.take(p) // stops the timer
		})
	}
}
