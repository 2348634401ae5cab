// Package bounded reads and keeps bytes that a program, a worker or a
// stray file could have written without ever holding more than its
// caller's bound: the bytes up to the bound, and whether there were more.
//
//	data, over := bounded.Read(f, 1<<20)
//	if over { /* refuse: more than 1 MiB */ }
//
//	// A file whose read errors matter, read in one call where its size
//	// says it is all there:
//	data, over, err := bounded.ReadSized(f, 1<<20, fi.Size())
//
//	out := &bounded.Writer{Max: 1 << 20} // a program's output, kept
//	_, _ = io.Copy(out, r)
//	fmt.Println(len(out.Bytes()), out.Written(), out.Cut())
package bounded

import (
	"bytes"
	"io"
	"strings"
)

// Read reads r to its end or to limit bytes, whichever comes first, and
// says whether r held more than limit (over). A read error ends the read
// as the end of r does: what was read is returned. Where a read's error
// must not pass for the end (a program to run), ReadSized says it.
func Read(r io.Reader, limit int64) (b []byte, over bool) {
	b, over, _ = ReadSized(r, limit, -1)
	return b, over
}

// ReadSized reads r to its end or past limit bytes, whichever comes
// first: the bytes, whether r held more than limit (over: the bytes are
// then its first limit), and a read's error, with what was read before
// it. size is what r held when it was looked at, where r is a regular
// file (an fstat, or a stat of its path), or -1 (a pipe, a socket); a
// size past limit is taken as unknown. With a size, the buffer is made
// for size+1 bytes, and reads that come to size bytes in all with room
// left end the reading: the file held no more when it was looked at,
// and the read for its end, which would give none, is not made.
// Otherwise (a read that came short of size, as a network file system
// may give, or a file that grew or shrank meanwhile) it reads on to the
// end. It never holds more than limit+1 bytes, nor takes more from r.
func ReadSized(r io.Reader, limit, size int64) (b []byte, over bool, err error) {
	sized := size >= 0 && size <= limit
	if !sized {
		size = min(firstRead, limit)
	}
	b = make([]byte, 0, size+1)
	for {
		n, rerr := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case int64(len(b)) > limit:
			return b[:limit], true, nil
		case rerr == io.EOF:
			return b, false, nil
		case rerr != nil:
			return b, false, rerr
		case sized && n > 0 && int64(len(b)) == size && len(b) < cap(b):
			return b, false, nil
		case len(b) == cap(b): // twice the room, up to the bound and one byte
			more := make([]byte, len(b), min(2*int64(cap(b)), limit+1))
			copy(more, b)
			b = more
		}
	}
}

// firstRead is ReadSized's first buffer where the size is not known.
const firstRead = 4 << 10

// Writer keeps the first Max bytes written to it and counts the rest. A
// write never fails: the writer (a program printing) runs on as if every
// byte were taken, and Cut says whether some were dropped. Its zero value
// keeps nothing.
type Writer struct {
	Max int // the bytes kept at most
	buf bytes.Buffer
	n   int64
}

// Write keeps what fits under Max and counts all of p.
func (w *Writer) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if room := w.Max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// Bytes returns the bytes kept.
func (w *Writer) Bytes() []byte { return w.buf.Bytes() }

// Written returns the count of every byte written, kept or not.
func (w *Writer) Written() int64 { return w.n }

// Cut reports whether more was written than kept.
func (w *Writer) Cut() bool { return w.n > int64(w.buf.Len()) }

// InMemory reports whether r is a reader of bytes already in memory
// (*bytes.Reader, *bytes.Buffer, *strings.Reader), whose Read never
// waits: a caller that must not wait on a reader past its context reads
// such a one at once, any other from a goroutine of its own.
func InMemory(r io.Reader) bool {
	switch r.(type) {
	case *bytes.Reader, *bytes.Buffer, *strings.Reader:
		return true
	}
	return false
}
