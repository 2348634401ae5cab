package run

import (
	"io"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
)

// TestAskToStopNeverWaits: a stop pipe that a program filled (its worker
// holds the read end, and raw system calls can write to it) does not
// hold the stop: askToStop returns while the pipe is full, so the stop's
// grace runs from then, and its write goes in once the pipe has room
// (what filled it read out first). The control is the same call on a
// pipe with room.
func TestAskToStopNeverWaits(t *testing.T) {
	tests := []struct {
		name string
		full bool
	}{
		{name: "a pipe a program filled", full: true},
		{name: "the control: a pipe with room"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := testkit.Pipe(t)
			filled := 0
			if tt.full {
				// Written until the pipe takes no more: the write that
				// fills it stops at its deadline.
				if err := w.SetWriteDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
					t.Skipf("this system's pipes take no deadline: %v", err)
				}
				var err error
				if filled, err = w.Write(make([]byte, 16<<20)); err == nil {
					t.Fatal("16 MiB went into the pipe: nothing to fill")
				}
			}
			asked := make(chan struct{})
			go func() {
				(&workerProc{stopW: w}).askToStop()
				close(asked)
			}()
			select {
			case <-asked:
			case <-time.After(testkit.Bound(10 * time.Second)):
				t.Fatal("askToStop waited on the pipe")
			}
			if err := r.SetReadDeadline(time.Now().Add(testkit.Bound(10 * time.Second))); err != nil {
				t.Fatal(err)
			}
			if _, err := io.CopyN(io.Discard, r, int64(filled)); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(wire.StopLine))
			if _, err := io.ReadFull(r, got); err != nil || string(got) != wire.StopLine {
				t.Errorf("the stop pipe holds %q, %v; want %q", got, err, wire.StopLine)
			}
		})
	}
}
