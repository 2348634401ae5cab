package ship

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
)

// TestReaderFindsNoWholeRecord: where the index places a receipt, an
// object that holds no whole record there (damaged bytes, or nothing) is
// an error that says so, not a receipt.
func TestReaderFindsNoWholeRecord(t *testing.T) {
	tests := []struct {
		name  string
		bytes string
	}{
		{name: "damaged bytes", bytes: "these bytes are not a journal record"},
		{name: "no bytes", bytes: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store, b, sh := shipping(t)
			rec := newLegacyRun("acme")
			store.Reserve(rec)
			finish(store, rec)
			if _, err := sh.round(ctx); err != nil {
				t.Fatal(err)
			}
			r := NewReader(b)
			if err := r.update(ctx, true); err != nil {
				t.Fatal(err)
			}
			const damaged = "elsewhere/damaged"
			if err := b.Create(ctx, damaged, []byte(tc.bytes)); err != nil {
				t.Fatal(err)
			}
			r.mu.Lock()
			p, ok := r.runs[rec.RunID]
			if !ok {
				r.mu.Unlock()
				t.Fatalf("run %s not indexed", rec.RunID)
			}
			p.obj, p.off, p.n = damaged, 0, int64(len(tc.bytes))
			r.runs[rec.RunID] = p
			r.mu.Unlock()
			got, err := r.Find(ctx, "acme", rec.RunID)
			if err == nil || !strings.Contains(err.Error(), "holds no whole record") {
				t.Errorf("Find of a run placed in damaged bytes = %v, %v; want an error saying so",
					got, err)
			}
		})
	}
}

// TestReaderIndex: an index entry of no length, or at a negative offset,
// places nothing; the reader keeps the receipts of as many objects as its
// bound holds, and forgets the oldest object's once past it.
func TestReaderIndex(t *testing.T) {
	ids := make([]string, 4)
	for i := range ids {
		ids[i] = newLegacyRun("acme").RunID
	}
	entry := func(id string, off, n int64) indexJSON {
		e := indexEntry{Key: "r-" + id + ".json", Tenant: "acme", Off: off, Len: n}
		return indexJSON{Receipts: []indexEntry{e}}
	}
	tests := []struct {
		name      string
		objects   []indexJSON
		wantFound []bool // of ids, in order
	}{
		{name: "an entry of no length", objects: []indexJSON{entry(ids[0], 0, 0)},
			wantFound: []bool{false, false, false, false}},
		{name: "an entry at a negative offset", objects: []indexJSON{entry(ids[0], -1, 10)},
			wantFound: []bool{false, false, false, false}},
		{name: "as many objects as the bound",
			objects:   []indexJSON{entry(ids[0], 0, 10), entry(ids[1], 0, 10)},
			wantFound: []bool{true, true, false, false}},
		{name: "one object of more receipts than the bound", objects: []indexJSON{{Receipts: append(append(
			entry(ids[0], 0, 10).Receipts, entry(ids[1], 0, 10).Receipts...), entry(ids[2], 0, 10).Receipts...)}},
			wantFound: []bool{true, true, true, false}},
		{name: "one object past the bound",
			objects:   []indexJSON{entry(ids[0], 0, 10), entry(ids[1], 0, 10), entry(ids[2], 0, 10)},
			wantFound: []bool{false, true, true, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(nil)
			r.max = 2
			for i, idx := range tc.objects {
				r.add("object-"+string(rune('a'+i)), idx, 0)
			}
			for i, id := range ids {
				if _, got := r.lookup(id); got != tc.wantFound[i] {
					t.Errorf("run %d found: %v, want %v", i, got, tc.wantFound[i])
				}
			}
		})
	}
}

// TestShipperEvery: a Shipper ships at the pace it is given, and every
// DefaultEvery when given none.
func TestShipperEvery(t *testing.T) {
	tests := []struct {
		name      string
		every     time.Duration
		wantEvery time.Duration
	}{
		{name: "none given", every: 0, wantEvery: DefaultEvery},
		{name: "an hour", every: time.Hour, wantEvery: time.Hour},
		{name: "a millisecond", every: time.Millisecond, wantEvery: time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, err := receipt.OpenStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sh, err := Start(store, bucket.NewMemory(), Options{Replica: "r1", Every: tc.every})
			if err != nil {
				t.Fatal(err)
			}
			defer sh.Close(context.Background())
			if sh.o.Every != tc.wantEvery {
				t.Errorf("Every %v ships every %v, want %v", tc.every, sh.o.Every, tc.wantEvery)
			}
		})
	}
}

// deadlineBucket is a Memory bucket whose List fails once its context is
// done, as a store reached over the network does.
type deadlineBucket struct{ *bucket.Memory }

func (b deadlineBucket) List(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return b.Memory.List(ctx, prefix)
}

// TestStartListsWithinItsDeadline: Start lists what this replica shipped
// before under a deadline a store can meet, not one already past.
func TestStartListsWithinItsDeadline(t *testing.T) {
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Replica: "r1", Every: time.Hour}
	sh, err := Start(store, deadlineBucket{bucket.NewMemory()}, opt)
	if err != nil {
		t.Fatalf("Start over a store that honours its deadline: %v", err)
	}
	sh.Close(context.Background())
}

// TestCloseWaitsForARunInFlight: Close ships what it can and waits for a
// run in flight to finish, and says what it left unshipped when its
// context ends first; once the run finishes, Close ships it.
func TestCloseWaitsForARunInFlight(t *testing.T) {
	tests := []struct {
		name       string
		finishLate bool // the run finishes while Close waits
		wantErr    bool
	}{
		{name: "the run never finishes", wantErr: true},
		{name: "the run finishes while Close waits", finishLate: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, b, sh := shipping(t)
			rec := newLegacyRun("acme")
			store.Reserve(rec)
			if _, err := sh.round(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if tc.finishLate {
				go func() {
					time.Sleep(50 * time.Millisecond)
					finish(store, rec)
				}()
			} else {
				// Before the Shipper's own Close at the end of the test.
				t.Cleanup(func() { finish(store, rec) })
			}
			err := sh.Close(ctx)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "left unshipped") {
					t.Errorf("Close with a run in flight past its deadline: %v, want an error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Close: %v", err)
			}
			if count, _ := shipped(t, b); count[rec.RunID] == 0 {
				t.Errorf("run %s not shipped by Close", rec.RunID)
			}
		})
	}
}

// listHangs is a Memory bucket whose List is held until the test lets it
// go: a store that hangs, as long as the test says.
type listHangs struct {
	*bucket.Memory
	entered chan struct{}
	release chan struct{}
}

func (b listHangs) List(ctx context.Context, prefix string) ([]string, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	select {
	case <-b.release:
		return b.Memory.List(ctx, prefix)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestStartDoesNotWaitForTheStore: Start returns while the store holds
// its first list (the replica listens and serves meanwhile), and its
// Status says the store is not reached until the list answers; then the
// round ships. The control is the answer: once the store answers, Status
// says it was reached.
func TestStartDoesNotWaitForTheStore(t *testing.T) {
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := listHangs{bucket.NewMemory(), make(chan struct{}, 1), make(chan struct{})}
	started := make(chan *Shipper, 1)
	go func() {
		sh, err := Start(store, b, Options{Replica: "r1", Every: time.Hour, CallTimeout: time.Hour})
		if err != nil {
			t.Error(err)
		}
		started <- sh
	}()
	var sh *Shipper
	select {
	case sh = <-started:
	case <-time.After(testkit.Bound(time.Minute)):
		close(b.release)
		t.Fatal("Start waited for a store that holds its list")
	}
	<-b.entered // the first round asks the store
	if st := sh.Status(); st.Listed || !strings.Contains(st.String(), "not been reached") {
		t.Errorf("Status while the store holds the list: %+v (%q), want it not reached", st, st.String())
	}
	close(b.release)
	<-sh.started
	if st := sh.Status(); !st.Listed || st.Err != nil {
		t.Errorf("Status once the store answered: %+v (%q), want it reached", st, st.String())
	}
	if err := sh.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
