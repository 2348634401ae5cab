package ship

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/journal"
)

// TestReaderPassesOverObjectsOfOthers: an object in the bucket that no
// Shipper wrote (anyone with the bucket's keys may write one), whose
// locator names the run asked for and is read first, is passed over, and
// the run's receipt is found in the object that holds it: not bytes of an
// object at all, an index that places the run on bytes that are no
// record, an index that gives the run to another tenant, and another
// run's receipt under the run's name. So is such an object under
// LegacyPrefix listed before the one that holds a run id of the earlier
// form. The controls: each run is found before the object is planted; a
// run that only the planted object names, and acme's run asked for by
// beta, are still not found, or, where the planted object is none a
// Shipper writes (its bytes no object, or no record where its index
// says), an error naming that object (E317), as findPlaced says: never
// its bytes taken for a receipt, nor another tenant's receipt given.
func TestReaderPassesOverObjectsOfOthers(t *testing.T) {
	ctx := context.Background()
	const planted = "a0/0123456789abcdef/00000001.journal" // listed before r1's
	tests := []struct {
		name string
		// object is the planted object, for the run id asked for.
		object func(t *testing.T, id string, other *receipt.Receipt) []byte
		// notObject: the object is none a Shipper writes, and a lookup
		// that finds no receipt names it.
		notObject bool
	}{
		{name: "not an object", object: func(*testing.T, string, *receipt.Receipt) []byte {
			return []byte("this is not json")
		}, notObject: true},
		{name: "an index that places the run on no record",
			object: func(t *testing.T, id string, _ *receipt.Receipt) []byte {
				idx := fmt.Sprintf(`{"replica":"a0","segment":1,"receipts":[{"key":"r-%s.json",`+
					`"tenant":"acme","off":0,"len":16}]}`, id)
				return append(plantedRecord(t, indexKey, []byte(idx)), "these are no record"...)
			}, notObject: true},
		// Its offset and length past the largest int64 together: a Memory
		// bucket's read of it panicked, and took the reader's process.
		{name: "an index that places the run on the largest length",
			object: func(t *testing.T, id string, _ *receipt.Receipt) []byte {
				idx := fmt.Sprintf(`{"replica":"a0","segment":1,"receipts":[{"key":"r-%s.json",`+
					`"tenant":"acme","off":0,"len":%d}]}`, id, math.MaxInt64)
				return append(plantedRecord(t, indexKey, []byte(idx)), "these are no record"...)
			}, notObject: true},
		{name: "an index that gives the run to another tenant",
			object: func(t *testing.T, id string, other *receipt.Receipt) []byte {
				obj, err := encodeObject("a0", 1, []string{"r-" + id + ".json"},
					[][]byte{other.StoredJSON()})
				if err != nil {
					t.Fatal(err)
				}
				return obj
			}},
		{name: "another run's receipt under the run's name",
			object: func(t *testing.T, id string, other *receipt.Receipt) []byte {
				other.Tenant = "acme"
				obj, err := encodeObject("a0", 1, []string{"r-" + id + ".json"},
					[][]byte{other.StoredJSON()})
				if err != nil {
					t.Fatal(err)
				}
				return obj
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store, b, sh := shipping(t)
			rec, legacy, other := newRun("acme"), newLegacyRun("acme"), newRun("beta")
			for _, r := range []*receipt.Receipt{rec, legacy, other} {
				store.Reserve(r)
				finish(store, r)
			}
			if _, err := sh.round(ctx); err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{rec.RunID, legacy.RunID} {
				if _, err := NewReader(b).Find(ctx, "acme", id); err != nil {
					t.Fatalf("run %s before anything is planted: %v", id, err)
				}
			}
			ghost := newRun("acme") // a run no Shipper shipped
			origin, ms, _ := receipt.RunIDOrigin(rec.RunID)
			gorigin, gms, _ := receipt.RunIDOrigin(ghost.RunID)
			ghostKey := Prefix + "a1/0123456789abcdef/00000001.journal"
			for _, p := range []struct {
				id, key string
				origin  string
				ms      int64
			}{
				{rec.RunID, Prefix + planted, origin, ms},
				{ghost.RunID, ghostKey, gorigin, gms},
			} {
				if err := b.Create(ctx, p.key, tc.object(t, p.id, newRun("beta"))); err != nil {
					t.Fatal(err)
				}
				loc := fmt.Sprintf("%s%012x-%012x/%s", locatorsOf(p.origin, p.ms), p.ms, p.ms, p.key)
				if err := b.Create(ctx, loc, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Create(ctx, LegacyPrefix+planted, tc.object(t, legacy.RunID,
				newLegacyRun("beta"))); err != nil {
				t.Fatal(err)
			}
			r := NewReader(b)
			for _, want := range []*receipt.Receipt{rec, legacy} {
				got, err := r.Find(ctx, "acme", want.RunID)
				if err != nil || got.RunID != want.RunID || got.Tenant != "acme" {
					t.Errorf("run %s with an object of another's read first: %v, %v; want its "+
						"receipt", want.RunID, got, err)
				}
			}
			// What a run of no receipt for this tenant is answered: as for a
			// run that never was, whichever it is, or the planted object
			// named.
			for _, c := range []struct{ what, tenant, id string }{
				{"a run only the planted object names", "acme", ghost.RunID},
				{"acme's run read by beta", "beta", rec.RunID},
			} {
				got, err := r.Find(ctx, c.tenant, c.id)
				if err == nil {
					t.Errorf("%s: %+v, want none", c.what, got)
				} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotAnObject) {
					t.Errorf("%s: %v, want not found or the planted object named", c.what, err)
				}
			}
			// Where the object the ghost's locator names is none a Shipper
			// writes, and no other holds the ghost's receipt, the lookup
			// says so, naming it (findPlaced); where it is an object that
			// holds no receipt of the ghost's for acme, not found.
			_, err := r.Find(ctx, "acme", ghost.RunID)
			switch {
			case tc.notObject && (!errors.Is(err, errNotAnObject) ||
				codes.CodeOf(err) != codes.E317 || !strings.Contains(err.Error(), ghostKey)):
				t.Errorf("a run only the planted object names: %v, want E317 naming %s", err,
					ghostKey)
			case !tc.notObject && !errors.Is(err, fs.ErrNotExist):
				t.Errorf("a run only the planted object names: %v, want not found", err)
			}
		})
	}
}

// plantedRecord is one journal record of key and payload, as an object holds it.
func plantedRecord(t *testing.T, key string, payload []byte) []byte {
	t.Helper()
	data, err := journal.AppendRecord(nil, key, payload)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
