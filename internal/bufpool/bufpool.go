// Package bufpool keeps byte buffers for the next use of the same kind:
// a buffer taken from a Pool comes empty, with the room an earlier use
// left it (or Room, when the pool has none to give), and one given back
// is kept unless it grew past Max, so that a large use's memory is not
// held for good. It is a [sync.Pool] of *[]byte with that bound, for the
// buffers a run writes and hands on (a receipt encoded for the journal,
// a journal's record, a worker's job), each copied out before it is
// given back.
//
//	var lines = bufpool.Pool{Max: 64 << 10}
//
//	bp := lines.Get()
//	*bp = append(*bp, "a line\n"...)
//	w.Write(*bp) // the writer copies it
//	lines.Put(bp)
package bufpool

import "sync"

// Pool keeps buffers of at most Max bytes' capacity; Room is the
// capacity of a new one. Its zero value keeps none (Max 0). It is safe
// for use by many goroutines; a Pool must not be copied after first use.
type Pool struct {
	Max, Room int
	p         sync.Pool
}

// Get returns a buffer of length 0: one given back before, or a new one
// with Room bytes of capacity. The caller owns it until Put.
func (p *Pool) Get() *[]byte {
	if bp, ok := p.p.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, p.Room)
	return &b
}

// Put gives bp back, emptied, to be taken by a later Get, unless its
// capacity is past Max: then it is left to the collector. The caller
// keeps no reference to *bp's bytes after it.
func (p *Pool) Put(bp *[]byte) {
	if bp == nil || cap(*bp) > p.Max {
		return
	}
	*bp = (*bp)[:0]
	p.p.Put(bp)
}
