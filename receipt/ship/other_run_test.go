package ship

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/journal"
)

// TestReaderAllAnotherRunUnderARunsName: a record shipped from a journal
// of the receipts directory whose key names one run and whose content is
// another run's receipt (planted there, or written over) is named and
// passed over by All, as the directory's own readers pass it over: the
// other run is listed once, and the record is named in skipped. The
// control: before it was planted, each run is listed once and nothing
// is skipped.
func TestReaderAllAnotherRunUnderARunsName(t *testing.T) {
	ctx := context.Background()
	store, b, sh := shipping(t)
	a, c := newRun("acme"), newRun("acme")
	for _, rec := range []*receipt.Receipt{a, c} {
		store.Reserve(rec)
		finish(store, rec)
	}
	if _, err := sh.round(ctx); err != nil {
		t.Fatal(err)
	}
	r := NewReader(b)
	count := func() (map[string]int, []receipt.SkippedFile) {
		t.Helper()
		runs, skipped, err := r.All(ctx, AnyTenant)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int{}
		for _, run := range runs {
			ids[run.RunID]++
		}
		return ids, skipped
	}
	if ids, skipped := count(); ids[a.RunID] != 1 || ids[c.RunID] != 1 || len(skipped) != 0 {
		t.Fatalf("listed %v, skipped %v; want each run once, nothing skipped", ids, skipped)
	}

	// Under a fresh key naming a run of no receipt, c's receipt.
	ghost := newRun("acme")
	j, err := journal.Open(filepath.Join(store.Dir(), "journal", "proc-ffffffffffffffff"),
		journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(ghost.Key(), c.StoredJSON()); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.round(ctx); err != nil {
		t.Fatal(err)
	}
	ids, skipped := count()
	if ids[a.RunID] != 1 || ids[c.RunID] != 1 || ids[ghost.RunID] != 0 {
		t.Errorf("listed %v; want %s and %s once each", ids, a.RunID, c.RunID)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0].Why, "content run "+c.RunID) {
		t.Errorf("skipped %v; want the record under %s named", skipped, ghost.Key())
	}
}
