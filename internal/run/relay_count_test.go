package run

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// takesAtMost is a caller's writer that takes at most max bytes: a write
// past them takes what fits and fails (a short write), and every write
// after it takes nothing and fails.
type takesAtMost struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (w *takesAtMost) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	room := max(w.max-w.buf.Len(), 0)
	if len(p) <= room {
		return w.buf.Write(p)
	}
	w.buf.Write(p[:room])
	return room, io.ErrShortWrite
}

func (w *takesAtMost) taken() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Len()
}

// The output of the counting tests: 200 lines of 50 bytes.
const (
	countLines = 200
	countTotal = countLines * 50
)

// TestRelayCountsWhatTheCallerTook: the receipt's stdout_bytes is what
// the caller's writer took, not what the worker wrote: a writer that takes
// 1000 bytes of the 10000 the program prints, then fails, is counted 1000,
// and one that fails at once 0. The control: a writer that takes
// everything is counted all 10000.
func TestRelayCountsWhatTheCallerTook(t *testing.T) {
	tests := []struct {
		name      string
		stdoutMax int // what the caller's writer takes at most
		wantBytes int // what it took, and the receipt counts
	}{
		{name: "taken whole", stdoutMax: 1 << 30, wantBytes: countTotal},
		{name: "cut short", stdoutMax: 1000, wantBytes: 1000},
		{name: "refused at once", stdoutMax: 0, wantBytes: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout := &takesAtMost{max: tt.stdoutMax}
			s := superviseProgram(t, "for i in range(200):\n    print(\"x\" * 49)\n", []string{"io"}, func(r *Run) { r.Stdout = stdout })
			t.Logf("outcome %s %s %q; the writer took %d bytes", s.rec.Outcome.Status, s.rec.Outcome.Code, s.rec.Outcome.Message, stdout.taken())
			if stdout.taken() != tt.wantBytes {
				t.Errorf("the caller's writer took %d bytes, want %d", stdout.taken(), tt.wantBytes)
			}
			if got := s.stored(t).Observed.StdoutBytes; got == nil || *got != int64(stdout.taken()) {
				t.Errorf("the receipt's stdout_bytes is %s, want the %d bytes the caller's writer took", countOf(got), stdout.taken())
			}
		})
	}
}

// TestRelayCountOfEachStream: the relay's count of each standard stream
// (what observed.stdout_bytes and stderr_bytes are made of) is what the
// caller's writer took of what the worker wrote, on output and on error
// alike: 1000 of 10000 from a writer that then fails, 0 from one that
// fails at once, and, the control, 10000 from one that takes everything.
func TestRelayCountOfEachStream(t *testing.T) {
	line := strings.Repeat("x", 49) + "\n"
	tests := []struct {
		name      string
		fd        int
		max       int // what the caller's writer takes at most
		wantBytes int // what it took, and the relay counts
	}{
		{name: "output taken whole", fd: 1, max: 1 << 30, wantBytes: countTotal},
		{name: "output cut short", fd: 1, max: 1000, wantBytes: 1000},
		{name: "error taken whole", fd: 2, max: 1 << 30, wantBytes: countTotal},
		{name: "error cut short", fd: 2, max: 1000, wantBytes: 1000},
		{name: "error refused at once", fd: 2, max: 0, wantBytes: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rl relay
			w := &takesAtMost{max: tt.max}
			wr, err := rl.to(tt.fd, w)
			if err != nil {
				t.Fatal(err)
			}
			for range countLines {
				if _, err := io.WriteString(wr, line); err != nil {
					break // the copy ended: the caller's writer failed
				}
			}
			wr.Close()
			waitCopies(t, &rl, "the copy did not end with its pipe")
			if w.taken() != tt.wantBytes {
				t.Errorf("the caller's writer took %d bytes, want %d", w.taken(), tt.wantBytes)
			}
			if got := rl.count(tt.fd); got == nil || *got != int64(w.taken()) {
				t.Errorf("the relay counts %s bytes on stream %d, want the %d the caller's writer took", countOf(got), tt.fd, w.taken())
			}
			if other := rl.count(3 - tt.fd); other != nil {
				t.Errorf("the relay counts %d bytes on stream %d, which the caller gave no writer", *other, 3-tt.fd)
			}
		})
	}
}

// countOf is a count as a message says it: its value, or none.
func countOf(n *int64) string {
	if n == nil {
		return "none"
	}
	return strconv.FormatInt(*n, 10)
}

// waitCopies waits, bounded, for the relay's copies to end, failing with
// why when they do not.
func waitCopies(t *testing.T, rl *relay, why string) {
	t.Helper()
	copied := make(chan struct{})
	go func() {
		rl.copies.Wait()
		close(copied)
	}()
	select {
	case <-copied:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatal(why)
	}
}
