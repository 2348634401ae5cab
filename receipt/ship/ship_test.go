package ship

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/journal"
)

// newRun is a receipt of tenant, not yet stored.
func newRun(tenant string) *receipt.Receipt {
	rec := receipt.NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	rec.Tenant = tenant
	return rec
}

// newLegacyRun is a receipt of tenant, not yet stored, whose run id is
// of the earlier form: 16 random digits, naming no process.
func newLegacyRun(tenant string) *receipt.Receipt {
	rec := newRun(tenant)
	rec.RunID = rec.RunID[:16]
	return rec
}

// finish finishes rec, ok.
func finish(s *receipt.Store, rec *receipt.Receipt) {
	rec.Outcome = receipt.OutcomeOf(nil)
	s.Finish(rec)
}

// start is a Shipper that ships only when the test calls round.
func start(t *testing.T, s *receipt.Store, b bucket.Bucket, replica string) *Shipper {
	t.Helper()
	sh, err := Start(s, b, Options{Replica: replica, Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close(context.Background()) })
	<-sh.started // what the test does next is not shipped before it asks
	return sh
}

// shipping is a store of its own, an empty bucket, and a Shipper of the
// store to it that ships only when the test calls round.
func shipping(t *testing.T) (*receipt.Store, *bucket.Memory, *Shipper) {
	t.Helper()
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := bucket.NewMemory()
	return store, b, start(t, store, b, "r1")
}

// shipped counts, for each run id, the records of it in the bucket's
// objects, and returns the last status of each.
func shipped(t *testing.T, b bucket.Bucket) (count map[string]int, status map[string]string) {
	t.Helper()
	return shippedUnder(t, b, Prefix, LegacyPrefix)
}

// shippedUnder is shipped of the objects whose keys begin with one of
// prefixes.
func shippedUnder(t *testing.T, b bucket.Bucket, prefixes ...string) (count map[string]int,
	status map[string]string) {
	t.Helper()
	ctx := context.Background()
	var keys []string
	for _, prefix := range prefixes {
		more, err := b.List(ctx, prefix)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, more...)
	}
	count, status = map[string]int{}, map[string]string{}
	for _, k := range keys {
		data, err := b.Read(ctx, k, 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := journal.ScanBytes(data, func(key string, payload []byte, off, _ int64) error {
			if off == 0 {
				return nil // the index
			}
			rec, err := receipt.Parse(key, payload)
			if err != nil {
				return err
			}
			count[rec.RunID]++
			status[rec.RunID] = rec.Outcome.Status
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return count, status
}

// TestShipOnce: a receipt reserved in one segment and finished in the
// next is shipped once, finished, with the later segment; a segment
// holding a run in flight waits for it; a Shipper started again over
// the same journal and bucket writes nothing it wrote before; every
// receipt is in the bucket once.
func TestShipOnce(t *testing.T) {
	ctx := context.Background()
	store, b, sh := shipping(t)

	a, long := newRun("acme"), newRun("acme")
	if err := store.Reserve(a); err != nil {
		t.Fatal(err)
	}
	finish(store, a)
	if err := store.Reserve(long); err != nil {
		t.Fatal(err)
	}
	if left, err := sh.round(ctx); err != nil || left != 1 {
		t.Fatalf("round with a run in flight: left %d, %v; want its segment left", left, err)
	}
	if n := sh.Objects(); n != 0 {
		t.Fatalf("%d objects written while a run of the segment was in flight", n)
	}
	finish(store, long) // in the segment after the skeleton's
	if left, err := sh.round(ctx); err != nil || left != 0 {
		t.Fatalf("round: left %d, %v", left, err)
	}
	count, status := shipped(t, b)
	for _, r := range []*receipt.Receipt{a, long} {
		if count[r.RunID] != 1 || status[r.RunID] != receipt.StatusOK {
			t.Errorf("run %s: %d records in the bucket, last %q; want one, ok", r.RunID, count[r.RunID], status[r.RunID])
		}
	}
	objects := sh.Objects()
	if objects != 2 {
		t.Errorf("%d objects, want 2 (one a sealed segment)", objects)
	}

	// Started again, once the first has ended (it holds its journal's
	// ship lock while it ships): the bucket says what is shipped, and
	// nothing is written twice.
	if err := sh.Close(ctx); err != nil {
		t.Fatal(err)
	}
	again := start(t, store, b, "r1")
	c := newRun("beta")
	if err := store.Reserve(c); err != nil {
		t.Fatal(err)
	}
	finish(store, c)
	if err := again.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := again.Objects(); n != 1 {
		t.Errorf("the second Shipper wrote %d objects, want 1 (the new segment)", n)
	}
	count, _ = shipped(t, b)
	if len(count) != 3 {
		t.Errorf("%d runs in the bucket, want 3", len(count))
	}
	for id, n := range count {
		if n != 1 {
			t.Errorf("run %s is in the bucket %d times", id, n)
		}
	}
}

// TestShipRetry: writing a segment's object again after a crash, when the
// bucket holds it already with the same receipts, writes nothing and
// succeeds; an object under the key with other receipts (a second
// replica with the same id) is a fault that names it.
func TestShipRetry(t *testing.T) {
	ctx := context.Background()
	store, b, sh := shipping(t)
	rec := newRun("acme")
	store.Reserve(rec)
	finish(store, rec)
	sealed, err := store.Journal().Seal()
	if err != nil {
		t.Fatal(err)
	}
	nums, _ := journal.Segments(store.Journal().Dir())
	obj, ready, err := sh.build(sh.dir, sealed, nums, store.InFlight)
	if err != nil || !ready {
		t.Fatal(ready, err)
	}
	if err := sh.put(ctx, sh.Key(sealed), obj); err != nil {
		t.Fatal(err)
	}
	if err := sh.put(ctx, sh.Key(sealed), obj); err != nil {
		t.Errorf("the same object written again: %v, want nil (it is there)", err)
	}
	other := newRun("acme")
	store.Reserve(other)
	finish(store, other)
	s2, _ := store.Journal().Seal()
	obj2, _, err := sh.build(sh.dir, s2, nums, store.InFlight)
	if err != nil {
		t.Fatal(err)
	}
	err = sh.put(ctx, sh.Key(sealed), obj2)
	if err == nil || !strings.Contains(err.Error(), "another replica") {
		t.Errorf("another object under a shipped key: %v, want a fault naming another replica", err)
	}
	if st := sh.Status(); st.Collisions != 1 {
		t.Errorf("after a key collision, Status counts %d, want 1", st.Collisions)
	}
	count, _ := shipped(t, b)
	if count[rec.RunID] != 1 || count[other.RunID] != 0 {
		t.Errorf("bucket: %v", count)
	}
}

// TestShipDead: a skeleton left by a process that died (reserved by no
// store of this process) is shipped as it is, once: the receipt that says
// the run never finished.
func TestShipDead(t *testing.T) {
	dir := t.TempDir()
	dead, err := journal.Open(filepath.Join(dir, "journal"), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := newRun("acme")
	data := fmt.Sprintf(`{"schema":%q,"run_id":%q,"tenant":"acme","outcome":{"status":"unfinished","code":"E327"}}`, receipt.Schema, rec.RunID)
	if err := dead.Append(rec.Key(), []byte(data)); err != nil {
		t.Fatal(err)
	}
	dead.Close()
	store, err := receipt.OpenStore(dir) // the replica started again
	if err != nil {
		t.Fatal(err)
	}
	b := bucket.NewMemory()
	sh := start(t, store, b, "r1")
	if err := sh.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	count, status := shipped(t, b)
	if count[rec.RunID] != 1 || status[rec.RunID] != receipt.StatusUnfinished {
		t.Errorf("the dead run: %d records, %q; want one, unfinished", count[rec.RunID], status[rec.RunID])
	}
}

// TestShipOutage: while the bucket refuses every call, nothing is shipped,
// the failure is kept and the lag grows past the pace; once the bucket is
// back, the next round ships everything and the lag falls below it. The
// Shipper's clock is the test's: a round's own time (a seal's fdatasync
// on a busy disk) counts nothing, and no sleep lets time pass.
func TestShipOutage(t *testing.T) {
	ctx := context.Background()
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, c := bucket.NewMemory(), newClock()
	sh := startOn(t, store, b, c)
	b.Fail = errors.New("the store is down")
	rec := newRun("acme")
	store.Reserve(rec)
	finish(store, rec)
	if _, err := sh.round(ctx); err == nil || sh.Err() == nil {
		t.Fatalf("a round against a bucket that is down: %v, Err %v; want the failure", err, sh.Err())
	}
	const outage = time.Hour + time.Minute // past the pace, startOn's hour
	c.advance(outage)
	lag := sh.Lag()
	if lag < outage {
		t.Errorf("lag during the outage %v, want at least the %v since the receipt", lag, outage)
	}
	b.Fail = nil
	if left, err := sh.round(ctx); err != nil || left != 0 || sh.Err() != nil {
		t.Fatalf("round once the bucket is back: left %d, %v, Err %v", left, err, sh.Err())
	}
	// The time since that round, on a clock that has not moved since.
	if after := sh.Lag(); after != 0 {
		t.Errorf("lag once shipped %v, want 0, below the %v of the outage", after, lag)
	}
	if count, _ := shipped(t, b); count[rec.RunID] != 1 {
		t.Errorf("after the outage the run is in the bucket %d times, want 1", count[rec.RunID])
	}
}

// TestReader: a receipt is found by its own tenant and by the operator,
// never by another tenant; a run not shipped is not found; All lists a
// tenant's receipts only.
func TestReader(t *testing.T) {
	ctx := context.Background()
	store, b, sh := shipping(t)
	var acme, beta []*receipt.Receipt
	for i := range 6 {
		rec := newRun("acme")
		if i%2 == 1 {
			rec.Tenant = "beta"
			beta = append(beta, rec)
		} else {
			acme = append(acme, rec)
		}
		store.Reserve(rec)
		finish(store, rec)
	}
	if _, err := sh.round(ctx); err != nil {
		t.Fatal(err)
	}
	r := NewReader(b)
	for _, rec := range acme {
		got, err := r.Find(ctx, "acme", rec.RunID)
		if err != nil || got.RunID != rec.RunID || got.Tenant != "acme" {
			t.Errorf("acme finds its run %s: %v, %v", rec.RunID, got, err)
		}
		if _, err := r.Find(ctx, "beta", rec.RunID); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("beta finds acme's run %s: %v, want not found", rec.RunID, err)
		}
		if _, err := r.Find(ctx, AnyTenant, rec.RunID); err != nil {
			t.Errorf("the operator finds %s: %v", rec.RunID, err)
		}
	}
	if _, err := r.Find(ctx, "acme", "0123456789abcdef"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run never shipped: %v, want not found", err)
	}
	runs, skipped, err := r.All(ctx, "beta")
	if err != nil || len(skipped) != 0 || len(runs) != len(beta) {
		t.Errorf("All(beta) = %d runs, %v, %v; want %d", len(runs), skipped, err, len(beta))
	}
	for _, run := range runs {
		if run.Tenant != "beta" {
			t.Errorf("All(beta) lists %s of %q", run.RunID, run.Tenant)
		}
	}
}

// TestReaderBound: past its bound, a Reader forgets the receipts of the
// objects it indexed first, and finds the others still (receipts whose
// run ids are of the earlier form: no other is indexed).
func TestReaderBound(t *testing.T) {
	ctx := context.Background()
	store, b, sh := shipping(t)
	var recs []*receipt.Receipt
	for range 3 {
		rec := newLegacyRun("acme")
		recs = append(recs, rec)
		store.Reserve(rec)
		finish(store, rec)
		if _, err := sh.round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(b)
	r.max = 2
	if err := r.update(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Find(ctx, "acme", recs[0].RunID); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the first run past the bound: %v, want forgotten", err)
	}
	for _, rec := range recs[1:] {
		if _, err := r.Find(ctx, "acme", rec.RunID); err != nil {
			t.Errorf("run %s within the bound: %v", rec.RunID, err)
		}
	}
}

// TestValidReplica holds replica ids to a DNS label.
func TestValidReplica(t *testing.T) {
	for _, tt := range []struct {
		name, id string
		want     bool
	}{
		{"pod name", "sabline-7c9f-x2", true},
		{"digits", "0", true},
		{"empty", "", false},
		{"upper case", "Replica", false},
		{"slash", "a/b", false},
		{"dot", "a.b", false},
		{"leading dash", "-a", false},
		{"64 characters", strings.Repeat("a", 64), false},
		{"63 characters", strings.Repeat("a", 63), true},
		{"the last of each range", "z-9", true},
	} {
		if got := ValidReplica(tt.id); got != tt.want {
			t.Errorf("%s: ValidReplica(%q) = %v, want %v", tt.name, tt.id, got, tt.want)
		}
	}
}

// TestSegmentOfKey: a segment's name is eight digits and .journal, as
// objectKey writes it; a sign or a space before them names none, so that
// no two keys name one segment (shippedIn reads its number from any key
// the bucket lists).
func TestSegmentOfKey(t *testing.T) {
	for _, tt := range []struct {
		name, rest string
		wantN      int
		wantOK     bool
	}{
		{"as written", "00000099.journal", 99, true},
		{"the largest", "99999999.journal", 99999999, true},
		{"zero", "00000000.journal", 0, true},
		{"a plus sign", "+0000099.journal", 0, false},
		{"a minus sign", "-0000099.journal", 0, false},
		{"a space", " 0000099.journal", 0, false},
		{"seven digits", "0000099.journal", 0, false},
		{"nine digits", "000000099.journal", 0, false},
		{"another suffix", "00000099.json", 0, false},
		{"a letter", "0000009a.journal", 0, false},
	} {
		n, ok := segmentOfKey(tt.rest)
		if n != tt.wantN || ok != tt.wantOK {
			t.Errorf("%s: segmentOfKey(%q) = %d, %v; want %d, %v", tt.name, tt.rest, n, ok,
				tt.wantN, tt.wantOK)
		}
	}
}
