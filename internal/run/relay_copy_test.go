package run

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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
// error begins with workerLabel in the pool's Stderr, however the
// worker's writes cut it, and its bytes are escaped.
func TestWorkerMessagesLabelEachLine(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "one line", writes: []string{"a\n"}, want: workerLabel + "a\n"},
		{name: "lines cut across writes", writes: []string{"a\nb", "c\n", "\n"},
			want: workerLabel + "a\n" + workerLabel + "bc\n" + workerLabel + "\n"},
		{name: "an escape sequence", writes: []string{"\x1b[2Jx\r\n"},
			want: workerLabel + `\x1b[2Jx\r` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst strings.Builder
			m := newWorkerMessages(&dst)
			for _, w := range tt.writes {
				if n, err := m.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if dst.String() != tt.want {
				t.Errorf("relayed %q, want %q", dst.String(), tt.want)
			}
		})
	}
}
