// Package bounded reads bytes that a program, a worker or a stray file
// could have written without ever holding more than its caller's bound:
// the bytes up to the bound, and whether there were more.
//
//	data, over := bounded.Read(f, 1<<20)
//	if over { /* refuse: more than 1 MiB */ }
package bounded

import "io"

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
