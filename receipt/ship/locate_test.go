package ship

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
)

// TestReaderAcrossReplicas: two replicas ship to one bucket; a tenant
// finds its own runs through either's Reader, whichever replica ran them,
// run ids of either form, and never another tenant's; runs of the new
// form go under Prefix with their locators, an object holding a run id of
// the earlier form under LegacyPrefix.
func TestReaderAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	b := bucket.NewMemory()
	type run struct {
		rec     *receipt.Receipt
		replica string
	}
	var runs []run
	for _, replica := range []string{"r1", "r2"} {
		store, err := receipt.OpenStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		sh := start(t, store, b, replica)
		for i, rec := range []*receipt.Receipt{newRun("acme"), newRun("beta"), newLegacyRun("acme"),
			newLegacyRun("beta")} {
			store.Reserve(rec)
			finish(store, rec)
			runs = append(runs, run{rec, replica})
			if i == 1 || i == 3 { // an object of new ids alone, then one with earlier ones
				if _, err := sh.round(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		if st := sh.Status(); st.Objects != 2 || st.Locators != 1 {
			t.Errorf("replica %s: %d objects, %d locators written; want 2 and 1 (one process, one "+
				"window; the second object holds no new id)", replica, st.Objects, st.Locators)
		}
		for _, p := range []string{Prefix, LegacyPrefix} {
			if keys, _ := b.List(ctx, p+replica+"/"); len(keys) != 1 {
				t.Errorf("replica %s: %d objects under %s, want 1", replica, len(keys), p)
			}
		}
	}
	for _, reader := range []string{"r1", "r2"} {
		r := NewReader(b)
		for _, run := range runs {
			other := map[string]string{"acme": "beta", "beta": "acme"}[run.rec.Tenant]
			got, err := r.Find(ctx, run.rec.Tenant, run.rec.RunID)
			if err != nil || got.RunID != run.rec.RunID {
				t.Errorf("reader %s: %s finds its run %s of replica %s: %v", reader, run.rec.Tenant,
					run.rec.RunID, run.replica, err)
			}
			if _, err := r.Find(ctx, other, run.rec.RunID); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("reader %s: %s finds %s's run %s of replica %s: %v, want not found", reader,
					other, run.rec.Tenant, run.rec.RunID, run.replica, err)
			}
		}
	}
}

// TestLocatorKeys: an object's locators name each process and window its
// run ids come from, with the first and last time of each, and the
// object; a run id of the earlier form has none, and sends the object
// under LegacyPrefix; each locator reads back as written.
func TestLocatorKeys(t *testing.T) {
	id := func(origin string, ms int64) string {
		return fmt.Sprintf("0123456789abcdef%s%012x", origin, ms)
	}
	const w = int64(1) << windowShift // the first millisecond of window 1
	entries := func(ids ...string) indexJSON {
		var idx indexJSON
		for _, id := range ids {
			idx.Receipts = append(idx.Receipts, indexEntry{Key: "20260101T000000.000000000Z-" + id + ".json"})
		}
		return idx
	}
	tests := []struct {
		name         string
		idx          indexJSON
		wantKey      string
		wantLocators []string
	}{
		{name: "one process, one window", idx: entries(id("0000000a", w+5), id("0000000a", w+9)),
			wantKey:      "receipts/r1/0123456789abcdef/00000007.journal",
			wantLocators: []string{"locators/0000000a/00000001/000000010005-000000010009/"}},
		{name: "a window straddled", idx: entries(id("0000000a", w-1), id("0000000a", w)),
			wantKey: "receipts/r1/0123456789abcdef/00000007.journal",
			wantLocators: []string{"locators/0000000a/00000000/00000000ffff-00000000ffff/",
				"locators/0000000a/00000001/000000010000-000000010000/"}},
		{name: "two processes", idx: entries(id("0000000b", w), id("0000000a", w)),
			wantKey: "receipts/r1/0123456789abcdef/00000007.journal",
			wantLocators: []string{"locators/0000000a/00000001/000000010000-000000010000/",
				"locators/0000000b/00000001/000000010000-000000010000/"}},
		{name: "an id of the earlier form beside", idx: entries(id("0000000a", w), "0123456789abcdef"),
			wantKey:      "segments/r1/0123456789abcdef/00000007.journal",
			wantLocators: []string{"locators/0000000a/00000001/000000010000-000000010000/"}},
		{name: "ids of the earlier form alone", idx: entries("0123456789abcdef"),
			wantKey: "segments/r1/0123456789abcdef/00000007.journal"},
		{name: "no receipts", idx: entries(), wantKey: "receipts/r1/0123456789abcdef/00000007.journal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, locators := placeObject("r1/0123456789abcdef/", 7, tc.idx)
			var want []string
			for _, l := range tc.wantLocators {
				want = append(want, l+tc.wantKey)
			}
			if key != tc.wantKey || !slices.Equal(locators, want) {
				t.Errorf("placeObject = %s, %q; want %s, %q", key, locators, tc.wantKey, want)
			}
			for _, l := range locators {
				rest := strings.Join(strings.SplitN(l, "/", 4)[3:], "")
				got, ok := parseLocator(rest)
				if !ok || got.object != key || got.first > got.last {
					t.Errorf("parseLocator(%q) = %+v, %v; want the object %s", rest, got, ok, key)
				}
			}
		})
	}
}

// TestParseLocator: a locator's key is the bucket's: only times of 12
// lower-case digits, first not after last, and the key of an object a
// Shipper writes are read; anything else is passed over.
func TestParseLocator(t *testing.T) {
	const object = "receipts/r1/0123456789abcdef/00000007.journal"
	tests := []struct {
		name   string
		rest   string
		wantOK bool
	}{
		{name: "a locator", rest: "000000010000-000000010009/" + object, wantOK: true},
		{name: "an object of the earlier layout", rest: "000000010000-000000010009/segments/r1/" +
			"0123456789abcdef/00000007.journal", wantOK: true},
		{name: "first after last", rest: "000000010009-000000010000/" + object},
		{name: "upper case", rest: "00000001000A-00000001000B/" + object},
		{name: "a sign", rest: "+00000010000-000000010009/" + object},
		{name: "short times", rest: "10000-10009/" + object},
		{name: "no object", rest: "000000010000-000000010009/"},
		{name: "another key of the bucket", rest: "000000010000-000000010009/probe/0123456789abcdef"},
		{name: "a path out", rest: "000000010000-000000010009/receipts/../probe/0123456789abcdef/" +
			"00000007.journal"},
		{name: "segment 0", rest: "000000010000-000000010009/receipts/r1/0123456789abcdef/" +
			"00000000.journal"},
		{name: "a journal id not of 16 digits", rest: "000000010000-000000010009/receipts/r1/0123/" +
			"00000007.journal"},
	}
	for _, tc := range tests {
		if _, ok := parseLocator(tc.rest); ok != tc.wantOK {
			t.Errorf("%s: parseLocator(%q) ok %v, want %v", tc.name, tc.rest, ok, tc.wantOK)
		}
	}
}

// TestLocatorBeforeObject: a locator whose object is not in the bucket (a
// Shipper stopped between the two) is passed over: the run is not found,
// and is once its object is there.
func TestLocatorBeforeObject(t *testing.T) {
	ctx := context.Background()
	store, b, sh := shipping(t)
	rec := newRun("acme")
	store.Reserve(rec)
	finish(store, rec)
	if _, err := sh.round(ctx); err != nil {
		t.Fatal(err)
	}
	// The bucket as it was between the two writes: the locator alone.
	before := bucket.NewMemory()
	keys, _ := b.List(ctx, "")
	for _, k := range keys {
		if strings.HasPrefix(k, LocatorPrefix) {
			before.Create(ctx, k, nil)
		}
	}
	if _, err := NewReader(before).Find(ctx, "acme", rec.RunID); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run whose object is not there: %v, want not found", err)
	}
	if _, err := NewReader(b).Find(ctx, "acme", rec.RunID); err != nil {
		t.Errorf("the run once its object is there: %v", err)
	}
}

// TestShippedBeforeTheChange: a journal shipped before its run ids named
// their process (its objects under LegacyPrefix) is not shipped again by
// the next Shipper on it, which goes on from there, under Prefix; every
// run is in the bucket once, and found.
func TestShippedBeforeTheChange(t *testing.T) {
	ctx := context.Background()
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := bucket.NewMemory()
	first, err := Start(store, b, Options{Replica: "r1", Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	<-first.started
	old := newLegacyRun("acme")
	store.Reserve(old)
	finish(store, old)
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}
	second := start(t, store, b, "r1")
	rec := newRun("acme")
	store.Reserve(rec)
	finish(store, rec)
	if _, err := second.round(ctx); err != nil {
		t.Fatal(err)
	}
	if n := second.Objects(); n != 1 {
		t.Errorf("the second Shipper wrote %d objects, want 1 (the first's not again)", n)
	}
	count, _ := shipped(t, b)
	r := NewReader(b)
	for _, id := range []string{old.RunID, rec.RunID} {
		if count[id] != 1 {
			t.Errorf("run %s in the bucket %d times, want 1", id, count[id])
		}
		if _, err := r.Find(ctx, "acme", id); err != nil {
			t.Errorf("run %s: %v", id, err)
		}
	}
}

// TestLookupCandidates: a lookup reads the indexes of at most
// maxCandidates objects whose locators' times hold the run id's, the
// narrowest first, and says so past them rather than answer as for a run
// that never was; within the bound the run is found in the last one read.
func TestLookupCandidates(t *testing.T) {
	ctx := context.Background()
	rec := newRun("acme")
	origin, ms, ok := receipt.RunIDOrigin(rec.RunID)
	if !ok {
		t.Fatalf("run id %s names no process", rec.RunID)
	}
	payload, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		objects   int  // objects whose locators hold the time, the widest holding the run
		wantFound bool // else an error naming the bound
		wantReads int
	}{
		{name: "as many as the bound", objects: maxCandidates, wantFound: true,
			wantReads: maxCandidates + 1},
		{name: "one past the bound", objects: maxCandidates + 1, wantReads: maxCandidates},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &countingBucket{Memory: bucket.NewMemory()}
			for i := range tc.objects {
				var keys []string
				var payloads [][]byte
				if i == tc.objects-1 {
					keys, payloads = []string{rec.Key()}, [][]byte{payload}
				}
				obj, err := encodeObject("r1", i+1, keys, payloads)
				if err != nil {
					t.Fatal(err)
				}
				key := objectKey(Prefix, "r1/0123456789abcdef/", i+1)
				locator := fmt.Sprintf("%s%012x-%012x/%s", locatorsOf(origin, ms), ms-int64(i), ms, key)
				for _, c := range []struct {
					key  string
					data []byte
				}{{locator, nil}, {key, obj}} {
					if err := b.Create(ctx, c.key, c.data); err != nil {
						t.Fatal(err)
					}
				}
			}
			_, err := NewReader(b).Find(ctx, "acme", rec.RunID)
			if found := err == nil; found != tc.wantFound ||
				(!found && !strings.Contains(fmt.Sprint(err), "past the")) {
				t.Errorf("Find = %v; want found %v, else an error naming the bound", err, tc.wantFound)
			}
			if b.reads != tc.wantReads {
				t.Errorf("%d reads, want %d", b.reads, tc.wantReads)
			}
		})
	}
}

// TestReaderLegacyMarks: a Reader keeps, of the objects under
// LegacyPrefix, the last segment it read of each journal: each listing
// reads the index of each object shipped since, once, and every run in
// them is found.
func TestReaderLegacyMarks(t *testing.T) {
	ctx := context.Background()
	store, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &countingBucket{Memory: bucket.NewMemory()}
	sh := start(t, store, b, "r1")
	r := NewReader(b)
	var recs []*receipt.Receipt
	for round := range 3 {
		rec := newLegacyRun("acme")
		recs = append(recs, rec)
		store.Reserve(rec)
		finish(store, rec)
		if _, err := sh.round(ctx); err != nil {
			t.Fatal(err)
		}
		before := b.reads
		if err := r.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if got := b.reads - before; got != 1 {
			t.Errorf("round %d: the listing read %d indexes, want 1 (the new object's)", round, got)
		}
	}
	if len(r.seen) != 1 || r.seen["r1/"+strings.Split(sh.rest, "/")[1]+"/"] != 3 {
		t.Errorf("the Reader keeps %v, want segment 3 of one journal", r.seen)
	}
	for _, rec := range recs {
		if _, err := r.Find(ctx, "acme", rec.RunID); err != nil {
			t.Errorf("run %s: %v", rec.RunID, err)
		}
	}
}
