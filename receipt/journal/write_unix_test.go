//go:build unix

package journal

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// writeFault is one way the write of a record can fail.
type writeFault struct {
	name         string
	write        func(call, fd int, b []byte, off int64) (int, error) // call counts from 0
	wantErr      error
	wantKeys     []string
	wantFragment bool // half the record is in the segment
}

// TestWriteFaults makes the write of one record fail as a kernel can:
// cut short without an error (a full disk), Append returns an error that
// says how much was written, the record is absent, and readers pass over
// its fragment and read the record after it; failed (a full disk before
// the first byte), Append returns the error and nothing is in the file;
// interrupted by a signal before it wrote anything (-1 and EINTR), the
// write is made again and the record is written once. Each at the end of
// the file and, in an Exclusive journal, in place.
func TestWriteFaults(t *testing.T) {
	tests := []writeFault{
		{name: "cut short", write: func(_, fd int, b []byte, off int64) (int, error) {
			return writeAt(fd, b[:len(b)/2], off)
		}, wantErr: io.ErrShortWrite, wantKeys: []string{"a", "c"}, wantFragment: true},
		{name: "failed", write: func(int, int, []byte, int64) (int, error) {
			return -1, syscall.ENOSPC
		}, wantErr: syscall.ENOSPC, wantKeys: []string{"a", "c"}},
		{name: "interrupted", write: func(call, fd int, b []byte, off int64) (int, error) {
			if call == 0 {
				return -1, syscall.EINTR
			}
			return writeAt(fd, b, off)
		}, wantKeys: []string{"a", "b", "c"}},
	}
	for _, exclusive := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/exclusive=%v", tt.name, exclusive), func(t *testing.T) {
				testWriteFault(t, Options{Exclusive: exclusive}, tt)
			})
		}
	}
}

func testWriteFault(t *testing.T, opt Options, tt writeFault) {
	defer func() { sysWrite = writeAt }()
	dir := t.TempDir()
	j := mustOpen(t, dir, opt)
	defer j.Close()
	a, b := payloadOf("a", 0), payloadOf("b", 1)
	if err := j.Append("a", a); err != nil {
		t.Fatal(err)
	}
	call := 0
	sysWrite = func(fd int, p []byte, off int64) (int, error) {
		defer func() { call++ }()
		return tt.write(call, fd, p, off)
	}
	err := j.Append("b", b)
	sysWrite = writeAt
	rec := len(encodeRecord(nil, "b", b))
	said := "bytes written" // only when some were
	if tt.wantFragment {
		said = fmt.Sprintf("%d of %d bytes written", rec/2, rec)
	}
	switch {
	case tt.wantErr == nil && err != nil:
		t.Errorf("Append = %v, want nil", err)
	case tt.wantErr != nil && (!errors.Is(err, tt.wantErr) ||
		strings.Contains(err.Error(), said) != tt.wantFragment):
		t.Errorf("Append = %v, want %v, saying %q: %v", err, tt.wantErr, said, tt.wantFragment)
	}
	if err := j.Append("c", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	recs, rep := readAll(t, dir)
	if keys := keysOf(recs); !slices.Equal(keys, tt.wantKeys) {
		t.Errorf("records %q, want %q", keys, tt.wantKeys)
	}
	var want []Damage
	if tt.wantFragment {
		want = []Damage{{Path: filepath.Join(dir, segmentName(1)),
			Offset: int64(len(encodeRecord(nil, "a", a))), Length: int64(rec / 2),
			Why: fmt.Sprintf("record of %d bytes runs past the end of the segment", rec)}}
	}
	if !slices.Equal(rep.Damage, want) {
		t.Errorf("damage %v, want %v", rep.Damage, want)
	}
}
