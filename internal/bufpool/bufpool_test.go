package bufpool

import "testing"

// TestPool: a buffer comes empty, with Room when new; one given back
// comes back (at least once in ten tries: a sync.Pool may drop what it
// holds at any collection, or hand it to another processor), emptied;
// one grown past Max never does.
func TestPool(t *testing.T) {
	p := &Pool{Max: 64, Room: 16}
	if bp := p.Get(); len(*bp) != 0 || cap(*bp) != 16 {
		t.Fatalf("a new buffer: length %d, capacity %d; want 0 and 16", len(*bp), cap(*bp))
	}
	kept, big := 0, 0
	for range 10 {
		bp := p.Get()
		*bp = append(*bp, "0123456789"...)
		p.Put(bp)
		if again := p.Get(); again == bp {
			kept++
			if len(*again) != 0 {
				t.Fatalf("a buffer given back comes with length %d, want 0", len(*again))
			}
		}
		large := make([]byte, 0, 65)
		p.Put(&large)
		if again := p.Get(); cap(*again) > 64 {
			big++
		}
	}
	if kept == 0 {
		t.Error("no buffer given back came back in ten tries")
	}
	if big != 0 {
		t.Errorf("a buffer past Max came back %d times in ten", big)
	}
}
