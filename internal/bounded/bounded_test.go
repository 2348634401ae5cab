package bounded

import (
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		limit    int64
		want     string
		wantOver bool
	}{
		{name: "shorter", in: "abc", limit: 4, want: "abc"},
		{name: "exactly the bound", in: "abcd", limit: 4, want: "abcd"},
		{name: "one past the bound", in: "abcde", limit: 4, want: "abcd", wantOver: true},
		{name: "empty", in: "", limit: 4, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, over := Read(strings.NewReader(tc.in), tc.limit)
			if string(got) != tc.want || over != tc.wantOver {
				t.Errorf("Read(%q, %d) = %q, %v; want %q, %v", tc.in, tc.limit, got, over, tc.want, tc.wantOver)
			}
		})
	}
}

// TestWriter checks that a Writer keeps what fits, counts all
// that was written, and never fails a write.
func TestWriter(t *testing.T) {
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
			c := &Writer{Max: tt.max}
			total := 0
			for _, w := range tt.writes {
				n, err := c.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				total += n
			}
			if got := string(c.Bytes()); got != tt.wantKept {
				t.Errorf("kept %q, want %q", got, tt.wantKept)
			}
			if c.Written() != int64(total) || c.Cut() != tt.wantCut {
				t.Errorf("counted %d (cut %v), want %d (cut %v)", c.Written(), c.Cut(), total, tt.wantCut)
			}
		})
	}
	// A flood keeps its memory: a hundred writes of 1 MiB into a 1 MiB
	// buffer leave the buffer at 1 MiB.
	const limit = 1 << 20
	c := &Writer{Max: limit}
	chunk := []byte(strings.Repeat("x", 1<<20))
	for range 100 {
		c.Write(chunk)
	}
	if c.buf.Len() != limit || c.buf.Cap() > 2*limit || c.Written() != 100<<20 {
		t.Errorf("after 100 MiB: kept %d (capacity %d), counted %d", c.buf.Len(), c.buf.Cap(), c.Written())
	}
}
