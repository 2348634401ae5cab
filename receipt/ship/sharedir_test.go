package ship

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	storeA, storeB := twoStores(t)
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

// shipThenEnd has a replica r1, in a process of its own, on the receipts
// directory dir run twice, ship, run once more (kept after the ship: the
// next replica ships it) and end: the three runs' ids, and the objects it
// shipped.
func shipThenEnd(t *testing.T, dir string) (ids []string, shipped map[string][]byte) {
	t.Helper()
	first := pool(t, dir)
	ids = []string{first.do(t, "ok"), first.do(t, "ok")}
	if _, err := first.stdin.Write([]byte("ship\n")); err != nil {
		t.Fatal(err)
	}
	w, objects := first.answer(t)
	if w != "shipped" {
		t.Fatalf("child said %q, want shipped", w)
	}
	if err := json.Unmarshal([]byte(objects), &shipped); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, first.do(t, "ok"))
	first.end(t, false)
	return ids, shipped
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
	ids, shippedByFirst := shipThenEnd(t, dir)

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

// TestShipperAfterAnEndedReplicaItsObjectsGone: the journal of a replica
// that ended is marked as far as it shipped, and the next replica goes on
// from the mark: what was shipped is not shipped again where the bucket
// no longer holds it (a retention rule removed it), and the run kept after
// the ship (the control) is.
func TestShipperAfterAnEndedReplicaItsObjectsGone(t *testing.T) {
	dir := t.TempDir()
	ids, shippedByFirst := shipThenEnd(t, dir)

	if len(shippedByFirst) == 0 {
		t.Fatal("the first replica shipped nothing")
	}
	// The objects it shipped are gone from the bucket (its retention
	// removed them): the bucket the next replica lists holds none.
	b := bucket.NewMemory()
	ctx := context.Background()
	store, err := receipt.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	sh := start(t, store, b, "r2")
	if err := sh.Close(ctx); err != nil {
		t.Fatal(err)
	}
	count, _ := shipped(t, b)
	for i, id := range ids {
		if want := min(i/2, 1); count[id] != want {
			t.Errorf("run %s: %d records in the bucket, want %d", id, count[id], want)
		}
	}
}

// TestShipperAfterAReplicaKilledWhileWriting: a replica (r1, a process
// of its own) is killed while its store agent writes an object of its
// journal, and never marks the segment shipped; the agent finishes the
// write, before or after the replica started next on the receipts
// directory, under another id (a pod's new name, or a second replica on
// the directory), takes the journal it left. Every run is in the bucket
// once: the journal ships under the keys of the replica that first
// shipped it, so the segment has one key, and of the two create-only
// writes the later finds the earlier's object. Without that, the next
// replica shipped the segment again under its own keys: each run twice
// in the bucket (sabline receipts list --receipts-url listed it twice,
// and receipts show of a prefix of its id was refused as naming two
// runs). The control: the agent never wrote it, and the next replica
// ships every run, once.
func TestShipperAfterAReplicaKilledWhileWriting(t *testing.T) {
	for _, tc := range []struct {
		name, cmd string
		before    bool // the object is in the bucket before the next replica starts
		after     bool // it is written once the next replica has shipped
	}{
		{name: "written before the next replica", cmd: "ship-die-written", before: true},
		{name: "written after the next replica", cmd: "ship-die-writing", after: true},
		{name: "control: never written", cmd: "ship-die-writing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first := pool(t, dir) // replica r1, in a process of its own
			ids := []string{first.do(t, "ok"), first.do(t, "ok")}
			if _, err := fmt.Fprintln(first.stdin, tc.cmd); err != nil {
				t.Fatal(err)
			}
			w, objects := first.answer(t)
			if w != "shipped" {
				t.Fatalf("child said %q, want shipped", w)
			}
			first.end(t, false) // it exited as it answered
			var left map[string][]byte
			if err := json.Unmarshal([]byte(objects), &left); err != nil {
				t.Fatal(err)
			}
			b := bucket.NewMemory()
			ctx := context.Background()
			pending := map[string][]byte{}
			for k, data := range left {
				if key, ok := strings.CutPrefix(k, pendingPrefix); ok {
					pending[key] = data
				} else if err := b.Create(ctx, k, data); err != nil {
					t.Fatal(err)
				}
			}
			want := 0
			if tc.before {
				want = 1
			}
			if count, _ := shipped(t, b); count[ids[0]] != want || count[ids[1]] != want {
				t.Fatalf("the first replica left %v in the bucket; want %v %d times each", count, ids,
					want)
			}
			if writing := !tc.before; writing != (len(pending) == 1) {
				t.Fatalf("the first replica left %d writes under way, want one: %v", len(pending),
					writing)
			}
			if !tc.after {
				pending = nil // the agent died too
			}

			store, err := receipt.OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := start(t, store, b, "r2").Close(ctx); err != nil {
				t.Fatal(err)
			}
			for key, data := range pending { // the agent's write, landing now
				if err := b.Create(ctx, key, data); !errors.Is(err, bucket.ErrExist) {
					t.Errorf("the first replica's write of %s, landing after the next replica "+
						"shipped: %v; want it refused, the key holding the same receipts", key, err)
				}
			}
			count, _ := shipped(t, b)
			for _, id := range ids {
				if count[id] != 1 {
					t.Errorf("run %s: %d records in the bucket, want one", id, count[id])
				}
			}
		})
	}
}

// shipRounds runs rounds of each of shs, in turn, until every run of
// ids is in b, and fails the test if they are not within a minute: a
// live journal's newest segment ships once its owner has sealed it, at
// a round after the one that asked.
func shipRounds(t *testing.T, b bucket.Bucket, ids []string, shs ...*Shipper) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(time.Minute); ; {
		for _, sh := range shs {
			if _, err := sh.round(ctx); err != nil {
				t.Fatal(err)
			}
		}
		count, _ := shipped(t, b)
		if !slices.ContainsFunc(ids, func(id string) bool { return count[id] == 0 }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs %v not all shipped after a minute of rounds: %v", ids, count)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runIn reserves and finishes a run in s, and returns its id.
func runIn(t *testing.T, s *receipt.Store) string {
	t.Helper()
	rec := newRun("acme")
	if err := s.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	finish(s, rec)
	return rec.RunID
}

// TestShipperStartedAfterItsJournalWasTaken: replica B's store keeps its
// receipts in the receipts directory of replica A, and takes receipts
// before B's Shipper starts: A's Shipper takes B's journal as a live
// process's, and ships it. B's Shipper, started then, finds its journal
// shipped elsewhere: it ships none of it while A holds it (neither what
// A shipped nor what comes after, which A ships), counts what A marked
// shipped (B's store, keeping its receipts only until shipped, lets go
// of those segments), and, once A has ended, takes its journal and goes
// on from A's mark. Every run is in the bucket once, under A's keys: the
// journal ships under the keys of the replica that first shipped it
// (byFile), whoever ships it after.
func TestShipperStartedAfterItsJournalWasTaken(t *testing.T) {
	storeA, storeB := twoStores(t)
	if err := storeB.Retain(receipt.Retention{}, true); err != nil {
		t.Fatal(err)
	}
	b := bucket.NewMemory()
	ctx := context.Background()
	shA := start(t, storeA, b, "ra")

	before := []string{runIn(t, storeB), runIn(t, storeB)}
	shipRounds(t, b, before, shA)

	shB := start(t, storeB, b, "rb")
	meanwhile := []string{runIn(t, storeB), runIn(t, storeB)}
	shipRounds(t, b, meanwhile, shA, shB)
	for range 3 { // B's alone: what A shipped, B ships not
		if _, err := shB.round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := storeB.Prune(); err != nil || n == 0 {
		t.Errorf("B's store, kept until shipped, removed %d segments (%v) of those A shipped; want some",
			n, err)
	}

	if err := shA.Close(ctx); err != nil {
		t.Fatal(err)
	}
	after := []string{runIn(t, storeB)}
	shipRounds(t, b, after, shB)

	count, _ := shipped(t, b)
	byA, _ := shippedUnder(t, b, Prefix+"ra/")
	for _, tc := range []struct {
		ids      []string
		shipper  map[string]int
		by, what string
	}{
		{before, byA, "A", "before B's Shipper started"},
		{meanwhile, byA, "A", "while A held B's journal"},
		{after, byA, "A", "once A had ended"},
	} {
		for _, id := range tc.ids {
			if count[id] != 1 || tc.shipper[id] != 1 {
				t.Errorf("run %s, of B's journal %s: %d records in the bucket, %d under %s's keys; "+
					"want one, %s's", id, tc.what, count[id], tc.shipper[id], tc.by, tc.by)
			}
		}
	}
}

// TestShipperSaysItsLockFails: a Shipper that cannot take its own
// journal's ship lock for another reason than another Shipper's holding
// it (a link planted under the lock's name) does not start, and says
// why: it would ship nothing of the journal, and say nothing. The
// control: with nothing planted it starts.
func TestShipperSaysItsLockFails(t *testing.T) {
	for _, tc := range []struct {
		name    string
		planted bool
	}{
		{name: "a link planted at the lock", planted: true},
		{name: "control: nothing planted", planted: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, err := receipt.OpenStore(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if tc.planted {
				target := filepath.Join(t.TempDir(), "elsewhere")
				if err := os.WriteFile(target, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(store.Journal().Dir(), shipLockFile)); err != nil {
					t.Fatal(err)
				}
			}
			sh, err := Start(store, bucket.NewMemory(), Options{Replica: "r1", Every: time.Hour})
			if sh != nil {
				defer sh.Close(context.Background())
			}
			if tc.planted != (err != nil) {
				t.Errorf("Start: %v; want an error %v", err, tc.planted)
			}
		})
	}
}

// twoStores are two stores of one receipts directory, the second opened
// through a link to it, as another process would open it: two journals
// in one directory.
func twoStores(t *testing.T) (a, b *receipt.Store) {
	t.Helper()
	dir := t.TempDir()
	link := t.TempDir() + "/receipts"
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	a, err := receipt.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = receipt.OpenStore(link); err != nil {
		t.Fatal(err)
	}
	if a == b || a.Journal().Dir() == b.Journal().Dir() {
		t.Fatal("one store for both paths: the test needs two journals")
	}
	return a, b
}
