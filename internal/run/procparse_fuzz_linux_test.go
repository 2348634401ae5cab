package run

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"
)

// readerSized is data behind a bufio.Reader of 16 to 79 bytes, as size
// picks: a buffer that small makes the fuzzer's short lines and entries
// longer than it, as a path or an environment of megabytes is longer
// than the 4 and 8 KiB the supervisor reads them through.
func readerSized(data []byte, size byte) (*bufio.Reader, int) {
	n := 16 + int(size)%64
	return bufio.NewReaderSize(bytes.NewReader(data), n), n
}

// FuzzNextMapping: nextMapping, over a maps file a worker shapes (the
// paths of the files it maps), reads each line to its end and agrees,
// line by line, with the lines split whole: the same START-END (the text
// before the first space, where it lies within the reader's buffer) and
// the same removedMark at its end, whatever the line's length; and it
// ends, one line a call, at the data's end.
func FuzzNextMapping(f *testing.F) {
	f.Add([]byte("7f00-7f01 r--s 00000000 fe:00 11 /tmp/x (deleted)\n"), byte(200))
	f.Add([]byte("7f00-7f01 r--s 00000000 fe:00 11 /tmp/"+strings.Repeat("d", 70)+" (deleted)\n"+
		"55-56 r-xp 00000000 00:00 0 [vdso]\n7e-7f rw-p 0 0 0 /a (deleted)"), byte(0))
	f.Add([]byte("a (deleted)\n\n (deleted)\nnospace (dele"), byte(3))
	f.Add([]byte(strings.Repeat("x", 200)+" (deleted)"), byte(63))
	f.Fuzz(func(t *testing.T, data []byte, size byte) {
		r, n := readerSized(data, size)
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			span, removed, err := nextMapping(r)
			wantSpan := ""
			if j := strings.IndexByte(line, ' '); j >= 0 && j < n {
				wantSpan = line[:j]
			}
			wantRemoved := strings.HasSuffix(line, removedMark)
			if span != wantSpan || removed != wantRemoved {
				t.Fatalf("line %d %q through %d bytes: read (%q, %v), want (%q, %v)", i, line, n,
					span, removed, wantSpan, wantRemoved)
			}
			last := i == len(lines)-1
			if (err != nil) != last {
				t.Fatalf("line %d of %d: the read's error %v", i, len(lines), err)
			}
		}
	})
}

// FuzzEnvironReadHolds: environReadHolds, over an environment any process
// of the supervisor's user shapes, finds a TMPDIR of want exactly where
// the entries split whole at their NULs hold one whose entry and NUL fit
// the reader's buffer, and passes over every longer one, whatever it
// holds. want is "/" (an entry "TMPDIR=/" or "TMPDIR=//" is one of it),
// so that the corpus names it on every machine.
func FuzzEnvironReadHolds(f *testing.F) {
	root, err := os.Stat("/")
	if err != nil {
		f.Fatal(err)
	}
	want := tmpDirs{"/": {root}}
	f.Add([]byte("HOME=/root\x00TMPDIR=/\x00"), byte(200))
	f.Add([]byte("X="+strings.Repeat("y", 40)+"TMPDIR=/\x00TMPDIR=/tmp\x00TMPDIR=//"), byte(20))
	f.Add([]byte("TMPDIR=/"+strings.Repeat("/", 80)), byte(63))
	f.Add([]byte("\x00\x00TMPDIR=\x00TMPDIR=/."), byte(0))
	f.Fuzz(func(t *testing.T, data []byte, size byte) {
		r, n := readerSized(data, size)
		expect := false
		for _, entry := range bytes.Split(data, []byte{0}) {
			if len(entry) < n && want.holds(entry) {
				expect = true
			}
		}
		if got := environReadHolds(r, want); got != expect {
			t.Fatalf("%q through %d bytes: holds %v, want %v", data, n, got, expect)
		}
	})
}
