package bounded

import (
	"bytes"
	"errors"
	"io"
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

// scripted is a reader of text that gives at most per bytes a read (all
// asked for when per is 0) and fails once failAt bytes are read, counting
// its reads and the bytes it gave.
type scripted struct {
	r      *strings.Reader
	per    int
	failAt int
	fail   error
	reads  int
	given  int
}

func (s *scripted) Read(p []byte) (int, error) {
	s.reads++
	if s.fail != nil && int(s.r.Size())-s.r.Len() >= s.failAt {
		return 0, s.fail
	}
	if s.per > 0 && len(p) > s.per {
		p = p[:s.per]
	}
	n, err := s.r.Read(p)
	s.given += n
	return n, err
}

// TestReadSized: r is read to its end, whatever size it was said to
// have; the read for the end is left out only where the size was known
// and the reads came to it with room left (the controls: the same text
// of unknown size, and reads that came short, make it); a read's error
// is returned with what was read before it; past the bound, the first
// limit bytes and over, however it was sized, and never more than the
// bound and one byte taken from r.
func TestReadSized(t *testing.T) {
	const limit = 4 * firstRead
	const text = "print(1)\n"
	long := strings.Repeat("#", limit+1000)
	tests := []struct {
		name      string
		text      string
		size      int64
		per       int
		failAt    int // a read fails once this many bytes are read; 0: none
		want      string
		wantOver  bool
		wantErr   bool
		wantReads int // 0: not counted
	}{
		{name: "sized", text: text, size: 9, want: text, wantReads: 1},
		{name: "of unknown size", text: text, size: -1, want: text, wantReads: 2},
		{name: "of unknown size, a first read's length", text: long[:firstRead],
			size: -1, want: long[:firstRead], wantReads: 2},
		{name: "empty", text: "", size: 0, want: "", wantReads: 1},
		{name: "reads that came short", text: text, size: 9, per: 4, want: text, wantReads: 3},
		{name: "grew after it was looked at", text: text, size: 4, want: text},
		{name: "shrank after it was looked at", text: text, size: 20, want: text, wantReads: 2},
		{name: "a read's error", text: text, size: 9, per: 4, failAt: 4, want: text[:4],
			wantErr: true},
		{name: "at the bound", text: long[:limit], size: limit, want: long[:limit]},
		{name: "at the bound, of unknown size", text: long[:limit], size: -1,
			want: long[:limit]},
		{name: "past the bound", text: long, size: int64(len(long)), want: long[:limit],
			wantOver: true},
		{name: "past the bound, said to be small", text: long, size: 10, want: long[:limit],
			wantOver: true},
		{name: "past the bound, of unknown size", text: long, size: -1, want: long[:limit],
			wantOver: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &scripted{r: strings.NewReader(tc.text), per: tc.per, failAt: tc.failAt}
			if tc.failAt > 0 {
				r.fail = errors.New("EIO")
			}
			got, over, err := ReadSized(r, limit, tc.size)
			if string(got) != tc.want || over != tc.wantOver || (err != nil) != tc.wantErr {
				t.Fatalf("ReadSized: %d bytes, over %v, %v; want %d bytes, over %v, an error %v",
					len(got), over, err, len(tc.want), tc.wantOver, tc.wantErr)
			}
			if tc.wantReads != 0 && r.reads != tc.wantReads {
				t.Errorf("ReadSized made %d reads, want %d", r.reads, tc.wantReads)
			}
			if r.given > limit+1 {
				t.Errorf("ReadSized took %d bytes from the reader, past the bound and one byte, %d",
					r.given, limit+1)
			}
			if cap(got) > limit+1 {
				t.Errorf("ReadSized's buffer holds %d bytes, past the bound and one byte, %d",
					cap(got), limit+1)
			}
		})
	}
}

// TestInMemory: the readers whose bytes are in memory are told apart
// from one that may wait (a pipe), which a caller reads from a goroutine
// of its own.
func TestInMemory(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	for _, tt := range []struct {
		name string
		r    io.Reader
		want bool
	}{
		{name: "a strings.Reader", r: strings.NewReader("x"), want: true},
		{name: "a bytes.Reader", r: bytes.NewReader([]byte("x")), want: true},
		{name: "a bytes.Buffer", r: bytes.NewBufferString("x"), want: true},
		{name: "a pipe", r: pr},
		{name: "a reader wrapping one in memory", r: io.LimitReader(strings.NewReader("x"), 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := InMemory(tt.r); got != tt.want {
				t.Errorf("InMemory = %v, want %v", got, tt.want)
			}
		})
	}
}
