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

// TestWriteFaults makes the write of one record fail as a kernel can:
// cut short without an error (a full disk), Append returns an error that
// says how much was written, the record is absent, and readers pass over
// its fragment and read the record after it; failed (a full disk before
// the first byte), Append returns the error and nothing is in the file;
// interrupted by a signal before it wrote anything (-1 and EINTR), the
// write is made again and the record is written once.
func TestWriteFaults(t *testing.T) {
	tests := []struct {
		name         string
		write        func(call, fd int, b []byte) (int, error) // call counts from 0
		wantErr      error
		wantKeys     []string
		wantFragment bool // half the record is in the segment
	}{
		{name: "cut short", write: func(_, fd int, b []byte) (int, error) {
			return syscall.Write(fd, b[:len(b)/2])
		}, wantErr: io.ErrShortWrite, wantKeys: []string{"a", "c"}, wantFragment: true},
		{name: "failed", write: func(int, int, []byte) (int, error) {
			return -1, syscall.ENOSPC
		}, wantErr: syscall.ENOSPC, wantKeys: []string{"a", "c"}},
		{name: "interrupted", write: func(call, fd int, b []byte) (int, error) {
			if call == 0 {
				return -1, syscall.EINTR
			}
			return syscall.Write(fd, b)
		}, wantKeys: []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() { sysWrite = syscall.Write }()
			dir := t.TempDir()
			j := mustOpen(t, dir, Options{})
			defer j.Close()
			a, b := payloadOf("a", 0), payloadOf("b", 1)
			if err := j.Append("a", a); err != nil {
				t.Fatal(err)
			}
			call := 0
			sysWrite = func(fd int, p []byte) (int, error) {
				defer func() { call++ }()
				return tt.write(call, fd, p)
			}
			err := j.Append("b", b)
			sysWrite = syscall.Write
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
				t.Errorf("Append = %v, want %v, saying %q: %v",
					err, tt.wantErr, said, tt.wantFragment)
			}
			if err := j.Append("c", []byte("{}")); err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			var keys []string
			rep, err := Scan(dir, func(k string, _ []byte) error {
				keys = append(keys, k)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys, tt.wantKeys) {
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
		})
	}
}
