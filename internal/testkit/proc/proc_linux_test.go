package proc

import (
	"os"
	"testing"
	"time"
)

// TestContextSwitches: this process's threads have switched, and switch
// more after a sleep (each sleep a voluntary switch); a process that is
// not there is an error.
func TestContextSwitches(t *testing.T) {
	before, err := ContextSwitches(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		time.Sleep(time.Millisecond)
	}
	after, err := ContextSwitches(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if before <= 0 || after <= before {
		t.Errorf("context switches %d, then %d after ten sleeps: want a count that grew", before, after)
	}
	if _, err := ContextSwitches(1 << 30); err == nil {
		t.Error("context switches of pid 1<<30 (no such process): no error")
	}
}
