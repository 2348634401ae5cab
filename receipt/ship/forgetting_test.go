package ship

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
)

// forgettingBucket is a Memory bucket that, while forget is set, answers
// the write of an object of receipts (under Prefix or LegacyPrefix) as
// done and keeps nothing of it: a store that answers success without
// storing. Its locators and probe keys it keeps.
type forgettingBucket struct {
	*bucket.Memory
	forget  atomic.Bool
	dropped atomic.Int64
	// cut, while set, has it keep the first half of such an object alone,
	// answering the write as done: a store that lost the rest.
	cut atomic.Bool
}

func (b *forgettingBucket) Create(ctx context.Context, key string, data []byte) error {
	receipts := strings.HasPrefix(key, Prefix) || strings.HasPrefix(key, LegacyPrefix)
	if b.forget.Load() && receipts {
		b.dropped.Add(1)
		return nil
	}
	if b.cut.Load() && receipts {
		data = data[:len(data)/2]
	}
	return b.Memory.Create(ctx, key, data)
}

// TestShippedOnlyOnceTheStoreHoldsIt: a store that answers the write of
// an object as done and keeps nothing of it had the segment counted
// shipped, and a store keeping receipts until shipped (sabline serve's
// default with --receipts-url) let it go from the disk at its next prune:
// the receipt was then in neither the bucket nor the journal. The object
// is read back now: the round fails, saying so, the segment stays on the
// disk (seen from outside: its file) and its receipt reads from there.
// The control: the same store keeping the object, the next round ships
// it once, and the segment goes.
func TestShippedOnlyOnceTheStoreHoldsIt(t *testing.T) {
	ctx := context.Background()
	b := &forgettingBucket{Memory: bucket.NewMemory()}
	b.forget.Store(true)
	store, sh, run, segment := oneSegmentKeptUntilShipped(t, b)

	left, err := sh.round(ctx)
	if err == nil || !errors.Is(err, bucket.ErrNotExist) || left != 1 {
		t.Fatalf("a round over a store that kept nothing it answered written (%d writes dropped): "+
			"%d left, %v; want the segment left, and the store said not to hold it",
			b.dropped.Load(), left, err)
	}
	if n, err := store.Prune(); n != 0 || err != nil {
		t.Fatalf("prune after that round: %d removed (%v), want none", n, err)
	}
	if _, err := os.Stat(segment); err != nil {
		t.Fatalf("the segment on the disk after that round and a prune: %v", err)
	}
	if _, err := receipt.FindRun(store.Dir(), run.RunID); err != nil {
		t.Fatalf("the receipt from the journal after that round: %v", err)
	}
	t.Logf("over a store that keeps nothing: %v", err)

	b.forget.Store(false)
	if left, err := sh.round(ctx); left != 0 || err != nil {
		t.Fatalf("a round once the store keeps what it is sent: %d left, %v", left, err)
	}
	if count, _ := shipped(t, b); count[run.RunID] != 1 || len(count) != 1 {
		t.Fatalf("the bucket holds %v, want the one receipt once", count)
	}
	if n, err := store.Prune(); n != 1 || err != nil {
		t.Fatalf("prune once shipped: %d removed (%v), want the segment", n, err)
	}
	if _, err := os.Stat(segment); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the shipped segment on the disk after a prune: %v, want it gone", err)
	}
	if got, err := NewReader(b).Find(ctx, "t1", run.RunID); err != nil || got.RunID != run.RunID {
		t.Fatalf("the receipt from the bucket: %v", err)
	}
}

// TestShippedOnlyAsWritten: a store that answers the write of an object as
// done and keeps other bytes under its key (its first half: the rest
// lost) does not have the segment counted shipped: the round fails, saying
// so, and the segment stays on the disk after a prune (seen from outside:
// its file), its receipt read from there; so does the next round, which
// finds that object under its key with the segment's index. The control is
// TestShippedOnlyOnceTheStoreHoldsIt's last round: a store keeping what it
// is sent has the segment shipped, and it goes.
func TestShippedOnlyAsWritten(t *testing.T) {
	ctx := context.Background()
	b := &forgettingBucket{Memory: bucket.NewMemory()}
	b.cut.Store(true)
	store, sh, run, segment := oneSegmentKeptUntilShipped(t, b)
	left, err := sh.round(ctx)
	if err == nil || !strings.Contains(err.Error(), "holds other bytes") || left != 1 {
		t.Fatalf("a round over a store that kept half of what it answered written: %d left, "+
			"%v; want the segment left, and the store said to hold other bytes", left, err)
	}
	if n, err := store.Prune(); n != 0 || err != nil {
		t.Fatalf("prune after that round: %d removed (%v), want none", n, err)
	}
	if _, err := os.Stat(segment); err != nil {
		t.Fatalf("the segment on the disk after that round and a prune: %v", err)
	}
	if _, err := receipt.FindRun(store.Dir(), run.RunID); err != nil {
		t.Fatalf("the receipt from the journal after that round: %v", err)
	}
	// The next round finds that object under its key, its index the
	// segment's: it holds the receipts in name only, and the segment
	// stays.
	if left, err := sh.round(ctx); err == nil || !strings.Contains(err.Error(),
		"holds other bytes") || left != 1 {
		t.Fatalf("the next round over the half kept: %d left, %v; want the segment left", left,
			err)
	}
	if n, err := store.Prune(); n != 0 || err != nil {
		t.Fatalf("prune after the next round: %d removed (%v), want none", n, err)
	}
	if _, err := os.Stat(segment); err != nil {
		t.Fatalf("the segment on the disk after the next round and a prune: %v", err)
	}
}

// oneSegmentKeptUntilShipped is a store that keeps receipts until they
// are shipped (sabline serve's default with --receipts-url), with one
// finished run in its first segment, and a shipper of it to b.
func oneSegmentKeptUntilShipped(t *testing.T, b bucket.Bucket) (*receipt.Store, *Shipper,
	*receipt.Receipt, string) {
	t.Helper()
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Retain(receipt.Retention{}, true); err != nil {
		t.Fatal(err)
	}
	sh := start(t, store, b, "r1")
	run := newRun("t1")
	if err := store.Reserve(run); err != nil {
		t.Fatal(err)
	}
	finish(store, run)
	return store, sh, run, filepath.Join(store.Journal().Dir(), "00000001.journal")
}
