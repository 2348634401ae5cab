package run

import (
	"bufio"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
)

// counted is a worker's Started that starts nothing and counts its kills.
type counted struct{ kills atomic.Int32 }

func (c *counted) Start() error            { return nil }
func (c *counted) AfterStart(int) error    { return nil }
func (c *counted) Wait() error             { return nil }
func (c *counted) Kill() error             { c.kills.Add(1); return nil }
func (c *counted) Close() error            { return nil }
func (c *counted) Memory() core.MemoryHold { return core.MemoryHold{} }
func (c *counted) OutOfMemory() bool       { return false }

// heldOpen is a workerProc with no process: its result pipe's write end,
// returned, stays open as a descendant of a worker can hold it. It has
// no watch of a temporary directory (a nil watch watches nothing).
func heldOpen(t *testing.T) (*workerProc, *counted, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	c := &counted{}
	return &workerProc{started: c, resR: r, res: bufio.NewReader(r), done: make(chan struct{}),
		breach: make(chan error, 1)}, c, w
}

// awaitBounded runs w.await in its own goroutine and returns its step,
// failing the test when it has not returned within bound.
func awaitBounded(t *testing.T, w *workerProc, f waitFor, bound time.Duration) step {
	t.Helper()
	got := make(chan step, 1)
	go func() { got <- w.await(f, w.readRecord(wire.MaxResultBytes)) }()
	select {
	case s := <-got:
		return s
	case <-time.After(testkit.Bound(bound)):
		t.Fatalf("await did not return within %s", bound)
		return step{}
	}
}

// TestAwaitEndsWithTheWorkersExit: a step whose worker exits while a
// descendant holds the result pipe open ends once the pipe is closed
// under its read, resultGrace after the exit, whether the exit comes
// during the step (told by workerProc.exit) or came before it (seen when
// the step is armed). Nothing stopped it: the outcome is the worker's
// death. The control: a step whose record comes needs no exit.
func TestAwaitEndsWithTheWorkersExit(t *testing.T) {
	for _, tt := range []struct {
		name      string
		exitFirst bool
	}{
		{name: "exit during the step"},
		{name: "exit before the step", exitFirst: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, c, _ := heldOpen(t)
			if tt.exitFirst {
				w.exit()
			} else {
				go func() {
					for w.awaited.Load() == nil {
						time.Sleep(time.Millisecond)
					}
					w.exit()
				}()
			}
			s := awaitBounded(t, w, waitFor{}, 10*resultGrace)
			if !s.eof || s.stop != nil {
				t.Errorf("step %+v, want the end of the pipe and no stop", s)
			}
			if c.kills.Load() == 0 {
				t.Error("the worker's session was not killed")
			}
			if w.awaited.Load() != nil {
				t.Error("the step is still registered after it ended")
			}
		})
	}
	t.Run("control: the record comes", func(t *testing.T) {
		w, c, pw := heldOpen(t)
		if _, err := pw.WriteString("{\"outcome\":{}}\n"); err != nil {
			t.Fatal(err)
		}
		s := awaitBounded(t, w, waitFor{}, resultGrace)
		if s.eof || s.stop != nil || !strings.HasPrefix(string(s.raw), "{\"outcome\":{}}") {
			t.Errorf("step %+v, want the record", s)
		}
		if c.kills.Load() != 0 {
			t.Errorf("killed %d times, want none", c.kills.Load())
		}
	})
}

// TestAwaitLeavesALateEnd: an end that comes once the step has ended by
// itself is not the step's, and is left for the next wait: the operator's
// signal in its channel, the bound broken in the worker's. The control:
// the same end while the step reads is the step's, and the worker is
// stopped.
func TestAwaitLeavesALateEnd(t *testing.T) {
	for _, tt := range []struct {
		name     string
		state    int32
		wantTook bool
	}{
		{name: "after the read", state: stepRead, wantTook: false},
		{name: "control: during the read", state: stepReading, wantTook: true},
	} {
		t.Run(tt.name+": a signal", func(t *testing.T) {
			w, _, pw := heldOpen(t)
			pw.Close() // the read, if any, ends at once
			sigs := make(chan os.Signal, 1)
			sigs <- syscall.SIGTERM
			a := &awaiting{w: w, f: waitFor{signals: sigs}, quit: make(chan struct{}),
				returned: make(chan struct{}), ended: make(chan step, 1)}
			a.state.Store(tt.state)
			a.takeSignals()
			if took := len(sigs) == 0; took != tt.wantTook {
				t.Fatalf("the signal taken: %v, want %v", took, tt.wantTook)
			}
			if tt.wantTook {
				close(a.returned)
				if e := <-a.ended; codes.CodeOf(e.stop) != codes.E309 || e.sig != syscall.SIGTERM {
					t.Errorf("the step ended with %+v, want E309 and SIGTERM", e)
				}
			}
		})
		t.Run(tt.name+": a bound broken", func(t *testing.T) {
			w, _, pw := heldOpen(t)
			pw.Close()
			broke := errors.New("a bound")
			w.breach <- broke
			a := &awaiting{w: w, returned: make(chan struct{}), ended: make(chan step, 1)}
			a.state.Store(tt.state)
			a.endByBreach()
			if took := len(w.breach) == 0; took != tt.wantTook {
				t.Fatalf("the breach taken: %v, want %v", took, tt.wantTook)
			}
			if tt.wantTook {
				close(a.returned)
				if e := <-a.ended; !errors.Is(e.stop, broke) {
					t.Errorf("the step ended with %+v, want the bound", e)
				}
			}
		})
	}
}
