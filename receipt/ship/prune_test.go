package ship

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestShippedSegmentsPruned: once a round has shipped a segment, the
// store's retention (receipt.RetainShipped, as sabline serve has with
// --receipts-url) lets it go from the disk; its receipt is then read from
// the bucket, and a local lookup says it is no longer kept (E337). A
// segment not shipped (sealed after the round) stays on the disk.
func TestShippedSegmentsPruned(t *testing.T) {
	store, b, sh := shipping(t)
	if err := store.Retain(receipt.Retention{}, true); err != nil {
		t.Fatal(err)
	}
	first := newRun("t1")
	if err := store.Reserve(first); err != nil {
		t.Fatal(err)
	}
	finish(store, first)
	if left, err := sh.round(context.Background()); left != 0 || err != nil {
		t.Fatalf("round: %d left, %v", left, err)
	}
	second := newRun("t1")
	if err := store.Reserve(second); err != nil {
		t.Fatal(err)
	}
	finish(store, second)
	if _, err := store.Journal().Seal(); err != nil { // sealed, not shipped
		t.Fatal(err)
	}
	if n, err := store.Prune(); n != 1 || err != nil {
		t.Fatalf("pruned %d (%v), want the shipped segment", n, err)
	}
	entries, err := os.ReadDir(store.Journal().Dir())
	if err != nil {
		t.Fatal(err)
	}
	var segs []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".journal") {
			segs = append(segs, e.Name())
		}
	}
	if len(segs) != 2 || segs[0] != "00000002.journal" {
		t.Fatalf("segments on disk %q: want the shipped 00000001 gone, 00000002 (not shipped) and "+
			"the one appended to kept", segs)
	}
	if _, err := receipt.FindRun(store.Dir(), first.RunID); codes.CodeOf(err) != codes.E337 {
		t.Fatalf("a local lookup of the shipped receipt: %v, want E337", err)
	}
	if got, err := NewReader(b).Find(context.Background(), "t1", first.RunID); err != nil ||
		got.RunID != first.RunID {
		t.Fatalf("the shipped receipt in the bucket: %v", err)
	}
	if _, err := receipt.FindRun(store.Dir(), second.RunID); err != nil {
		t.Fatalf("the receipt not shipped, still on the disk: %v", err)
	}
}
