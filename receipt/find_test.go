package receipt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestFindRun: a run is found by its whole id, in a receipt file or in
// the journal (its last record: finished after reserved); a prefix, an
// id of no run, a malformed id and a missing directory are E317 not
// found.
func TestFindRun(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	journaled := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	journaled.Timings.Started = time.Now().UTC()
	if err := s.Reserve(journaled); err != nil {
		t.Fatal(err)
	}
	journaled.Outcome = OutcomeOf(nil)
	s.Finish(journaled)
	filed := receipt("/q.vel", "fedcba9876543210", 1, "full", StatusOK)
	if _, err := filed.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, dir, id string
		wantStatus    string // "" for not found
	}{
		{name: "in the journal, finished", dir: dir, id: journaled.RunID, wantStatus: StatusOK},
		{name: "in a file", dir: dir, id: filed.RunID, wantStatus: StatusOK},
		{name: "a prefix", dir: dir, id: journaled.RunID[:8]},
		{name: "no such run", dir: dir, id: "0000000000000000"},
		{name: "not a run id", dir: dir, id: "../" + journaled.RunID},
		{name: "no directory", dir: dir + "/none", id: journaled.RunID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FindRun(tt.dir, tt.id)
			if tt.wantStatus == "" {
				if codes.CodeOf(err) != codes.E317 || !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("FindRun(%q): %v, want E317 not found", tt.id, err)
				}
				return
			}
			if err != nil || got.RunID != tt.id || got.Outcome.Status != tt.wantStatus {
				t.Errorf("FindRun(%q): %+v, %v; want the run, %s", tt.id, got.Receipt, err, tt.wantStatus)
			}
		})
	}
}

// TestFindRunReadsSegmentsSinceTheRun: a lookup of an id that says when
// its run was made reads first the segments written since then (less the
// clock's slack), then, when none of them holds the run, the others
// (TestFindRunAfterTheClockSteppedBack): a record in a segment whose
// modification time is set before its id's time is found all the same;
// an id of the earlier form, which says no time, is found wherever it is.
// That the segments before are passed over when the run is found after
// them is journal.TestIndexSince's.
func TestFindRunReadsSegmentsSinceTheRun(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	made := func(id string) string {
		rec := receipt("/p.vel", id, 0, "full", StatusOK)
		rec.RunParameters.Durability = None
		s.Finish(rec)
		if _, err := rec.Stored(); err != nil {
			t.Fatal(err)
		}
		return rec.RunID
	}
	timed := made(fmt.Sprintf("%016x%s%012x", 1, "0000abcd", at.UnixMilli()))
	untimed := made("00000000000000ee")
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	seg := s.Journal().Stats().Segment
	for _, tt := range []struct {
		name      string
		mtime     time.Time
		wantFound bool
	}{
		{name: "written after the run was made", mtime: at.Add(time.Second), wantFound: true},
		{name: "within the clock's slack", mtime: at.Add(-clockSlack / 2), wantFound: true},
		{name: "written before the run was made", mtime: at.Add(-time.Minute), wantFound: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.Chtimes(seg, tt.mtime, tt.mtime); err != nil {
				t.Fatal(err)
			}
			got, err := FindRun(dir, timed)
			if found := err == nil && got.RunID == timed; found != tt.wantFound {
				t.Errorf("FindRun(%s): %v (%v), want found %v", timed, found, err, tt.wantFound)
			}
			if got, err := FindRun(dir, untimed); err != nil || got.RunID != untimed {
				t.Errorf("FindRun(%s), an id with no time: %v, want found", untimed, err)
			}
		})
	}
}

// TestFindRunAfterTheClockSteppedBack: a run's records were appended
// after its id was made, but a wall clock stepped back an hour between the
// two (an NTP step, an operator's date) stamps their segment an hour
// before the id's time. Seen from outside, the segments' times set so
// (os.Chtimes): the run is found, finished, whether its records are in
// one segment or its reserved record is in one written before the step
// and its finished record in the next. The controls: the same runs with
// their segments' times as written are found, and an id made now of no
// run is not found.
func TestFindRunAfterTheClockSteppedBack(t *testing.T) {
	stepped := time.Now().Add(-time.Hour)
	for _, tt := range []struct {
		name  string
		seal  bool // seal the segment between the reserved and finished records
		touch bool // set the last segment's time an hour back
	}{
		{name: "one segment, stamped an hour back", touch: true},
		{name: "finished in the next segment, stamped an hour back", seal: true, touch: true},
		{name: "one segment, as written (control)"},
		{name: "finished in the next segment, as written (control)", seal: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
			rec.Timings.Started = time.Now().UTC()
			if err := s.Reserve(rec); err != nil {
				t.Fatal(err)
			}
			if tt.seal {
				if _, err := s.Journal().Seal(); err != nil {
					t.Fatal(err)
				}
			}
			rec.Outcome = OutcomeOf(nil)
			s.Finish(rec)
			if _, err := rec.Stored(); err != nil {
				t.Fatal(err)
			}
			if tt.touch {
				seg := s.Journal().Stats().Segment
				if err := os.Chtimes(seg, stepped, stepped); err != nil {
					t.Fatal(err)
				}
			}
			got, err := FindRun(dir, rec.RunID)
			if err != nil || got.RunID != rec.RunID || got.Outcome.Status != StatusOK {
				status := ""
				if got.Receipt != nil {
					status = got.Outcome.Status
				}
				t.Errorf("FindRun(%s): status %q, %v; want the run, %s", rec.RunID, status, err,
					StatusOK)
			}
			none := NewForSource("/p.vel", nil, budget.Budget{}, nil).RunID
			if _, err := FindRun(dir, none); codes.CodeOf(err) != codes.E317 ||
				!errors.Is(err, fs.ErrNotExist) {
				t.Errorf("FindRun(%s), no such run: %v, want E317 not found", none, err)
			}
		})
	}
}

// BenchmarkFindReceipt: one receipt found by its id in a store of 19,000
// (a pool's journal), the way GET /v1/receipts/{id} found it before
// (List, every receipt decoded, then the id looked for) and with FindRun
// (through the index of the journal's run ids, one receipt read and
// decoded), side by side; and FindRun of an id of no run, of the earlier
// form that says no time (Miss), which before the index read the whole
// journal each time, and reads none of it.
func BenchmarkFindReceipt(b *testing.B) {
	dir := b.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	const n = 19000
	var ids []string
	start := time.Now().UTC()
	for i := range n {
		rec := NewForSource(fmt.Sprintf("/srv/programs/job%d.vel", i), []byte("print(\"hello\")\n"), budget.MustParse("/srv", "io", "fs:read:data"), []string{"a", "b"})
		rec.Timings.Started = start.Add(time.Duration(i) * time.Millisecond)
		rec.RunParameters.Confinement, rec.RunParameters.ConfinementReason = "full", "every file, network and process limit of this budget is held by the kernel"
		rec.RunParameters.ConfinementLayers = []string{"landlock-abi7", "seccomp", "capabilities-dropped"}
		rec.Outcome = OutcomeOf(nil)
		rec.RunParameters.Durability = None // one Sync below
		s.Finish(rec)
		if _, err := rec.Stored(); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, rec.RunID)
	}
	if err := s.Sync(); err != nil {
		b.Fatal(err)
	}
	want := ids[n/2]
	b.Run("List", func(b *testing.B) {
		for b.Loop() {
			runs, err := List(dir)
			found := false
			for _, r := range runs {
				found = found || r.RunID == want
			}
			if err != nil || !found {
				b.Fatal(err)
			}
		}
	})
	b.Run("Miss", func(b *testing.B) {
		for b.Loop() {
			if _, err := FindRun(dir, "00000000f100d000"); !errors.Is(err, fs.ErrNotExist) {
				b.Fatal(err)
			}
		}
	})
	b.Run("FindRun", func(b *testing.B) {
		for b.Loop() {
			if r, err := FindRun(dir, want); err != nil || r.RunID != want {
				b.Fatal(err)
			}
		}
	})
}
