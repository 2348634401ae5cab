// Package bounded reads and keeps bytes that a program, a worker or a
// stray file could have written without ever holding more than its
// caller's bound: the bytes up to the bound, and whether there were more.
//
//	data, over := bounded.Read(f, 1<<20)
//	if over { /* refuse: more than 1 MiB */ }
//
//	out := &bounded.Writer{Max: 1 << 20} // a program's output, kept
//	_, _ = io.Copy(out, r)
//	fmt.Println(len(out.Bytes()), out.Written(), out.Cut())
package bounded

import (
	"bytes"
	"io"
)

// Read reads r to its end or to limit bytes, whichever comes first, and
// says whether r held more than limit (over). A read error ends the read
// as the end of r does: what was read is returned.
func Read(r io.Reader, limit int64) (b []byte, over bool) {
	b, _ = io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(b)) > limit {
		return b[:limit], true
	}
	return b, false
}

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
