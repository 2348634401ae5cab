package ship

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
)

// TestTwoShippersOneDirectory: two replicas keep their receipts in one
// receipts directory (the second store opened through a link to it, as
// another process would open it) and ship to one bucket under their own
// replica ids. Each ships its own journal; neither ships the other's,
// which the other ships: every run reaches the bucket once. Without its
// own journal's ship lock, each replica took the other's journal for a
// live process's and shipped it too, under its own keys: every receipt
// twice.
func TestTwoShippersOneDirectory(t *testing.T) {
	dir := t.TempDir()
	link := t.TempDir() + "/receipts"
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	storeA, err := receipt.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	storeB, err := receipt.OpenStore(link)
	if err != nil {
		t.Fatal(err)
	}
	if storeA == storeB || storeA.Journal().Dir() == storeB.Journal().Dir() {
		t.Fatal("one store for both paths: the test needs two journals")
	}
	b := bucket.NewMemory()
	shA, shB := start(t, storeA, b, "ra"), start(t, storeB, b, "rb")
	ctx := context.Background()
	var ids []string
	for range 3 {
		for _, s := range []*receipt.Store{storeA, storeB} {
			rec := newRun("acme")
			if err := s.Reserve(rec); err != nil {
				t.Fatal(err)
			}
			finish(s, rec)
			ids = append(ids, rec.RunID)
		}
		// Rounds of both, each asking the other's store to seal, as the
		// two processes' rounds go.
		for range 3 {
			for _, sh := range []*Shipper{shA, shB} {
				if _, err := sh.round(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	count, _ := shipped(t, b)
	for _, id := range ids {
		if count[id] != 1 {
			t.Errorf("run %s: %d records in the bucket, want one", id, count[id])
		}
	}
}

// TestShipperAfterAnEndedReplica: a replica ships its journal under its
// id and ends; the replica started after it on the same receipts
// directory under another id (a pod's new name) takes the journal it
// left, and ships only what was not shipped: every run once. Without
// the mark the first left in its own journal, the second listed the
// bucket under its own id, found nothing, and shipped every receipt
// again.
func TestShipperAfterAnEndedReplica(t *testing.T) {
	dir := t.TempDir()
	first := pool(t, dir) // replica r1, in a process of its own
	ids := []string{first.do(t, "ok"), first.do(t, "ok")}
	if _, err := first.stdin.Write([]byte("ship\n")); err != nil {
		t.Fatal(err)
	}
	w, objects := first.answer(t)
	if w != "shipped" {
		t.Fatalf("child said %q, want shipped", w)
	}
	var shippedByFirst map[string][]byte
	if err := json.Unmarshal([]byte(objects), &shippedByFirst); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, first.do(t, "ok")) // kept after the ship: the next replica ships it
	first.end(t, false)

	b := bucket.NewMemory()
	ctx := context.Background()
	for k, data := range shippedByFirst {
		if err := b.Create(ctx, k, data); err != nil {
			t.Fatal(err)
		}
	}
	if count, _ := shipped(t, b); count[ids[0]] != 1 || count[ids[1]] != 1 {
		t.Fatalf("the first replica shipped %v, want %v once each", count, ids[:2])
	}
	store, err := receipt.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	sh := start(t, store, b, "r2")
	if err := sh.Close(ctx); err != nil {
		t.Fatal(err)
	}
	count, _ := shipped(t, b)
	for _, id := range ids {
		if count[id] != 1 {
			t.Errorf("run %s: %d records in the bucket, want one", id, count[id])
		}
	}
}
