//go:build unix

package worker

import (
	"syscall"
	"testing"
	"time"
)

// TestStopperKeepsTheSignal: the stop signal, sent to this process once
// a stopper listens, is kept as an ask for the run to come (without the
// stopper the Go runtime drops it, and the wait fails), and a pool
// worker's stopper forgets it. The signal goes to the test's own
// process, which the stopper's Notify holds from then on.
func TestStopperKeepsTheSignal(t *testing.T) {
	s := newStopper()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	asked := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.asked
	}
	for deadline := time.Now().Add(10 * time.Second); !asked(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stop signal was not kept as an ask within 10 s")
		}
	}
	s.betweenRuns()
	if asked() {
		t.Fatal("a pool worker's stopper kept the ask")
	}
}
