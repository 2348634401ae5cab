package ship

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/journal"
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

// TestEndedJournalRemoved: the journal of a process that ended, once
// shipped whole, is removed from the disk (seen from outside: its
// directory is gone) when its owner kept receipts only until shipped
// (receipt.UntilShippedFile, as its Retain marks it), and its receipt is
// read from the bucket; the controls: a journal whose owner kept them all
// stays, whatever the shipping store keeps of its own, and the journal
// directory itself (where receipts were kept before each process had its
// own) is never removed.
func TestEndedJournalRemoved(t *testing.T) {
	tests := []struct {
		name        string
		untilShip   bool // the owner kept its receipts until shipped
		keep        receipt.Retention
		wantRemoved bool
	}{
		{name: "kept until shipped", untilShip: true, keep: receipt.Retention{All: true},
			wantRemoved: true},
		{name: "kept past shipping", keep: receipt.Retention{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ended := filepath.Join(dir, "journal", "proc-00000000000000aa")
			legacy := filepath.Join(dir, "journal")
			runs := map[string]string{}
			for _, jdir := range []string{ended, legacy} {
				j, err := journal.Open(jdir, journal.Options{})
				if err != nil {
					t.Fatal(err)
				}
				rec := newRun("acme")
				data := fmt.Sprintf(`{"schema":%q,"run_id":%q,"tenant":"acme","outcome":{"status":"ok"}}`,
					receipt.Schema, rec.RunID)
				if err := j.Append(rec.Key(), []byte(data)); err != nil {
					t.Fatal(err)
				}
				if err := j.Close(); err != nil {
					t.Fatal(err)
				}
				runs[jdir] = rec.RunID
			}
			if tt.untilShip {
				mark := filepath.Join(ended, receipt.UntilShippedFile)
				if err := os.WriteFile(mark, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			store, err := receipt.OpenStore(dir) // the replica started again
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Retain(tt.keep, true); err != nil {
				t.Fatal(err)
			}
			b := bucket.NewMemory()
			sh := start(t, store, b, "r1")
			if left, err := sh.round(context.Background()); left != 0 || err != nil {
				t.Fatalf("round: %d left, %v", left, err)
			}
			_, err = os.Stat(ended)
			if removed := errors.Is(err, fs.ErrNotExist); removed != tt.wantRemoved {
				t.Errorf("the ended journal removed: %v (%v), want %v", removed, err, tt.wantRemoved)
			}
			if segs, err := journal.Segments(legacy); err != nil || len(segs) != 1 {
				t.Errorf("the journal directory's own segments: %v (%v), want the one kept", segs, err)
			}
			for jdir, id := range runs {
				if got, err := NewReader(b).Find(context.Background(), "acme", id); err != nil ||
					got.RunID != id {
					t.Errorf("the receipt of %s in the bucket: %v", jdir, err)
				}
			}
		})
	}
}
