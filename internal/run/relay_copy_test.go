package run

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// writeCalls is a caller's writer that keeps each Write it is given: one
// that sends a message per Write, or opens its file on the first.
type writeCalls struct {
	mu    sync.Mutex
	calls [][]byte
}

func (w *writeCalls) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, bytes.Clone(p))
	return len(p), nil
}

// TestRelayWritesOnlyWhatTheWorkerWrote: the relay's copy gives the
// caller's writer what the worker wrote, counted, and nothing else: no
// Write without bytes, at the stream's end or anywhere, so a worker that
// writes nothing leaves the caller's writer untouched.
func TestRelayWritesOnlyWhatTheWorkerWrote(t *testing.T) {
	tests := []struct {
		name   string
		writes []string // what the worker writes, write by write
		want   string   // what the caller's writer is given, and counted
	}{
		{name: "nothing", want: ""},
		{name: "one line", writes: []string{"hello\n"}, want: "hello\n"},
		{name: "several writes", writes: []string{"a", "bc", "def\n"}, want: "abcdef\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, w := pipe(t)
			var rl relay
			var n atomic.Int64
			dst := &writeCalls{}
			rl.copy(dst, r, &rl.std, &n, nil)
			for _, s := range tc.writes {
				if _, err := w.WriteString(s); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			waitCopies(t, &rl, "the copy did not end with the worker's stream")
			var got []byte
			for i, c := range dst.calls {
				if len(c) == 0 {
					t.Errorf("write %d of %d gave the caller's writer no bytes",
						i+1, len(dst.calls))
				}
				got = append(got, c...)
			}
			if string(got) != tc.want || n.Load() != int64(len(tc.want)) {
				t.Errorf("the caller was given %q, counted %d; want %q, counted %d",
					got, n.Load(), tc.want, len(tc.want))
			}
		})
	}
}

// TestWorkerMessagesLabelEachLine: each line of a pool worker's standard
// error begins with workerLabel in the pool's Stderr, and its bytes are
// escaped; each write to the Stderr is whole lines. A line one write
// leaves unfinished is held until a later write ends it (the Go runtime
// writes a trace a few bytes at a time, and each piece was a labelled line
// of its own), or it is ended where the stream ends, or past
// unfinishedBytes (another writer's line can come between two writes:
// TestPoolWorkerLineBetweenAnothersLines).
func TestWorkerMessagesLabelEachLine(t *testing.T) {
	long := strings.Repeat("y", unfinishedBytes+1)
	full := strings.Repeat("y", unfinishedBytes)
	tests := []struct {
		name       string
		writes     []string
		wantWrites []string // each write the Stderr was given, the stream ended
	}{
		{name: "one line", writes: []string{"a\n"}, wantWrites: []string{workerLabel + "a\n"}},
		{name: "a line cut across writes, joined", writes: []string{"a\nb", "c", "d\n", "\n"},
			wantWrites: []string{workerLabel + "a\n", workerLabel + "bcd\n", workerLabel + "\n"}},
		{name: "the runtime's trace, a few bytes a write",
			writes:     []string{"panic: ", "boom", "\n\ngoroutine 1", " [running]:\n"},
			wantWrites: []string{workerLabel + "panic: boom\n" + workerLabel + "\n", workerLabel + "goroutine 1 [running]:\n"}},
		{name: "a line never ended, ended at the stream's end", writes: []string{"sabline: pool: x"},
			wantWrites: []string{workerLabel + "sabline: pool: x\n"}},
		{name: "an unfinished line past the bound, ended", writes: []string{long, "z\n"},
			wantWrites: []string{workerLabel + long + "\n", workerLabel + "z\n"}},
		{name: "an unfinished line at the bound, held", writes: []string{full, "z\n"},
			wantWrites: []string{workerLabel + full + "z\n"}},
		{name: "an escape sequence", writes: []string{"\x1b[2Jx\r\n"},
			wantWrites: []string{workerLabel + `\x1b[2Jx\r` + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst writeCalls
			m := newWorkerMessages(&dst)
			for _, w := range tt.writes {
				if n, err := m.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			m.endHeld() // as the stream's end does (relay.copy)
			var got []string
			for _, c := range dst.calls {
				got = append(got, string(c))
			}
			if !slices.Equal(got, tt.wantWrites) {
				t.Errorf("relayed %q, want %q", got, tt.wantWrites)
			}
		})
	}
}

// TestWorkerMessagesEndAHeldLineInTime: a line the worker left
// unfinished, and the stream open, reaches the Stderr once unfinishedWait
// has passed, ended, and what the worker writes after it is a line of
// its own; so does the next line it leaves unfinished, in its own time.
// The control: before that, nothing of it is written.
func TestWorkerMessagesEndAHeldLineInTime(t *testing.T) {
	var dst testkit.LockedBuffer
	m := newWorkerMessages(&dst)
	began := time.Now()
	if _, err := m.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := dst.String(); got != "" && time.Since(began) < unfinishedWait {
		t.Fatalf("the Stderr holds %q before the line's wait passed, want nothing", got)
	}
	waitUntil(t, func() bool { return dst.String() != "" })
	if got := dst.String(); got != workerLabel+"x\n" {
		t.Fatalf("the Stderr holds %q, want the held line ended", got)
	}
	if _, err := m.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if got, want := dst.String(), workerLabel+"x\n"+workerLabel+"y\n"; got != want {
		t.Errorf("the Stderr holds %q, want %q", got, want)
	}
	if _, err := m.Write([]byte("z")); err != nil {
		t.Fatal(err)
	}
	want := workerLabel + "x\n" + workerLabel + "y\n" + workerLabel + "z\n"
	waitUntil(t, func() bool { return dst.String() != workerLabel+"x\n"+workerLabel+"y\n" })
	if got := dst.String(); got != want {
		t.Errorf("the Stderr holds %q, want %q: the second line held ended in its time", got, want)
	}
}

// TestWorkerMessagesEndAHeldLineWithTheStream: a line a pool worker left
// unfinished as its standard error ended is written, ended, by the time
// the copy of that stream has ended (what a pool's Close waits for), not
// unfinishedWait later, when the caller may have taken its Stderr back.
// The control: a line the worker ended is written as it is.
func TestWorkerMessagesEndAHeldLineWithTheStream(t *testing.T) {
	for _, tc := range []struct{ name, write, want string }{
		{name: "a line left unfinished", write: "x", want: workerLabel + "x\n"},
		{name: "control: a line ended", write: "x\n", want: workerLabel + "x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w := pipe(t)
			var rl relay
			var dst testkit.LockedBuffer
			began := time.Now()
			rl.copy(newWorkerMessages(&dst), r, nil, nil, nil)
			if _, err := w.WriteString(tc.write); err != nil {
				t.Fatal(err)
			}
			w.Close()
			waitCopies(t, &rl, "the copy did not end with the worker's stream")
			got := dst.String()
			if time.Since(began) >= unfinishedWait {
				t.Skipf("the copy took %v, past unfinishedWait: its timer may have ended the "+
					"line", time.Since(began))
			}
			if got != tc.want {
				t.Errorf("once the copy ended, the Stderr holds %q, want %q", got, tc.want)
			}
		})
	}
}

// waitUntil waits, bounded, until cond holds.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("waited too long")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRelayKeepsTheWritersRefusal: a caller's writer of the worker's
// standard output or error that refuses what it is given (an error, or a
// part taken and no error) is the relay's undelivered error, naming the
// stream, once the copy has ended: the run then fails (E305,
// undeliveredOutcome). The control: a writer that takes all leaves none.
func TestRelayKeepsTheWritersRefusal(t *testing.T) {
	refuses := errors.New("the caller's writer refuses")
	for _, tc := range []struct {
		name string
		fd   int
		dst  io.Writer
		want string // in undelivered's error; "" for none
	}{
		{name: "standard output, an error", fd: 1, dst: errWriter{refuses},
			want: "standard output (Stdout): " + refuses.Error()},
		{name: "standard error, an error", fd: 2, dst: errWriter{refuses},
			want: "standard error (Stderr): " + refuses.Error()},
		{name: "standard error, a part taken", fd: 2, dst: halfWriter{},
			want: "standard error (Stderr): " + io.ErrShortWrite.Error()},
		{name: "standard error, all taken (the control)", fd: 2, dst: io.Discard},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rl relay
			w, err := rl.to(tc.fd, tc.dst)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteString("a line of the worker's\n"); err != nil {
				t.Fatal(err)
			}
			w.Close()
			rl.copies.Wait()
			for _, f := range rl.from {
				f.Close()
			}
			err = rl.undelivered()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("undelivered: %v, want none", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("undelivered: %v, want %q", err, tc.want)
			}
		})
	}
}

// errWriter is a writer whose every Write fails with err.
type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

// halfWriter is a writer that takes half of each Write, and says no error.
type halfWriter struct{}

func (halfWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

// TestWorkerMessagesBoundCountsLabels: the bound on what the pool
// writes of a worker's standard error counts what it writes, labels and
// escapes too: a worker that writes one short line at a time, each of
// which a label and its escapes make some ten times longer, gets at most
// maxWorkerMessageBytes into the pool's Stderr, then the line that says
// the rest was dropped. The control: the same lines, fewer than the
// bound holds, reach it whole, with no such line.
func TestWorkerMessagesBoundCountsLabels(t *testing.T) {
	const line = "\x1b\n" // 2 bytes, 27 once labelled and escaped
	note := fmt.Sprintf("\nsabline: pool: a worker's standard error passed %d bytes; "+
		"the rest was dropped\n", maxWorkerMessageBytes)
	each := len(workerLabel + `\x1b` + "\n")
	for _, tt := range []struct {
		name  string
		lines int
		cut   bool
	}{
		{name: "past the bound once labelled", lines: maxWorkerMessageBytes / len(line), cut: true},
		{name: "within it (the control)", lines: maxWorkerMessageBytes / each},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var dst strings.Builder
			m := newWorkerMessages(&dst)
			for range tt.lines {
				if n, err := m.Write([]byte(line)); n != len(line) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			got := dst.String()
			if !tt.cut {
				if got != strings.Repeat(workerLabel+`\x1b`+"\n", tt.lines) {
					t.Errorf("relayed %d bytes, want each of %d lines whole", len(got), tt.lines)
				}
				return
			}
			if len(got) > maxWorkerMessageBytes+len(note) || !strings.HasSuffix(got, note) {
				t.Errorf("relayed %d bytes ending %q; want at most %d, then %q", len(got),
					got[max(0, len(got)-80):], maxWorkerMessageBytes, note)
			}
		})
	}
}
