package run

import (
	"strings"
	"testing"
)

// TestCapped checks that eval's output buffer keeps what fits, counts all
// that was written, and never fails a write.
func TestCapped(t *testing.T) {
	tests := []struct {
		name     string
		max      int
		writes   []string
		wantKept string
		wantCut  bool
	}{
		{name: "under the bound", max: 10, writes: []string{"abc", "def"}, wantKept: "abcdef"},
		{name: "exactly the bound", max: 6, writes: []string{"abc", "def"}, wantKept: "abcdef"},
		{name: "a write across the bound", max: 4, writes: []string{"abc", "def"}, wantKept: "abcd", wantCut: true},
		{name: "writes past the bound", max: 3, writes: []string{"abc", "def", "ghi"}, wantKept: "abc", wantCut: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &capped{max: tt.max}
			total := 0
			for _, w := range tt.writes {
				n, err := c.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				total += n
			}
			if got := c.buf.String(); got != tt.wantKept {
				t.Errorf("kept %q, want %q", got, tt.wantKept)
			}
			if c.n != int64(total) || c.cut() != tt.wantCut {
				t.Errorf("counted %d (cut %v), want %d (cut %v)", c.n, c.cut(), total, tt.wantCut)
			}
		})
	}
	// A flood keeps its memory: a hundred writes of 1 MiB into a 1 MiB
	// buffer leave the buffer at 1 MiB.
	c := &capped{max: EvalOutputLimit}
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range 100 {
		c.Write(chunk)
	}
	if c.buf.Len() != EvalOutputLimit || c.buf.Cap() > 2*EvalOutputLimit || c.n != 100<<20 {
		t.Errorf("after 100 MiB: kept %d (capacity %d), counted %d", c.buf.Len(), c.buf.Cap(), c.n)
	}
}
