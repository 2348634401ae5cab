package receipt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt/journal"
)

// TestParseRetention: each form reads, and reads back as written; what
// is not one is refused, saying the forms.
func TestParseRetention(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Retention
		wantErr bool
	}{
		{name: "all", in: "all", want: Retention{All: true}},
		{name: "shipped", in: "shipped", want: Retention{}},
		{name: "days", in: "7d", want: Retention{MaxAge: 7 * 24 * time.Hour}},
		{name: "hours", in: "36h0m0s", want: Retention{MaxAge: 36 * time.Hour}},
		{name: "MiB", in: "512MiB", want: Retention{MaxBytes: 512 << 20}},
		{name: "GiB", in: "2GiB", want: Retention{MaxBytes: 2 << 30}},
		{name: "zero days", in: "0d", wantErr: true},
		{name: "zero size", in: "0MiB", wantErr: true},
		{name: "negative age", in: "-1h", wantErr: true},
		{name: "bare number", in: "512", wantErr: true},
		{name: "MB, not MiB", in: "512MB", wantErr: true},
		{name: "word", in: "forever", wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "a hundred years", in: "36500d", want: Retention{MaxAge: 36500 * 24 * time.Hour}},
		{name: "past a hundred years", in: "36501d", wantErr: true},
		// Written by String as 36501d, which would not read back.
		{name: "past a hundred years in hours", in: "876024h0m0s", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRetention(tt.in)
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), RetentionForm) {
					t.Fatalf("ParseRetention(%q) = %+v, %v: want refused, saying %s", tt.in, got, err,
						RetentionForm)
				}
				return
			}
			if err != nil || got != tt.want || got.String() != tt.in {
				t.Fatalf("ParseRetention(%q) = %+v (%q), %v: want %+v", tt.in, got, got.String(), err,
					tt.want)
			}
		})
	}
	// The bound in hours is the bound in days: a hundred years in hours
	// is taken, and written back in days, which reads back.
	got, err := ParseRetention("876000h")
	if err != nil || got.MaxAge != 36500*24*time.Hour || got.String() != "36500d" {
		t.Fatalf("ParseRetention(876000h) = %+v (%q), %v; want a hundred years, 36500d", got,
			got.String(), err)
	}
	if back, err := ParseRetention(got.String()); err != nil || back != got {
		t.Fatalf("ParseRetention(%q) = %+v, %v; want %+v", got.String(), back, err, got)
	}
}

// finishedIn appends one finished receipt to s, then seals the segment
// it is in: each call's receipt is in a segment of its own. It returns
// the receipt and its segment's number.
func finishedIn(t *testing.T, s *Store) (*Receipt, int) {
	t.Helper()
	rec := finished(t, s)
	n, err := s.Journal().Seal()
	if err != nil {
		t.Fatal(err)
	}
	return rec, n
}

// finished is a receipt reserved and finished in s.
func finished(t *testing.T, s *Store) *Receipt {
	t.Helper()
	rec := NewForSource("/p.vel", nil, budget.Budget{}, []string{"x"})
	rec.Timings.Started = time.Now().UTC()
	if err := s.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	rec.Outcome = OutcomeOf(nil)
	s.Finish(rec)
	return rec
}

// segmentFiles lists the segment files in dir, as the file system has
// them.
func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".journal") {
			out = append(out, e.Name())
		}
	}
	return out
}

func segName(n int) string { return fmt.Sprintf("%08d.journal", n) }

// TestPruneShipped: with shipping on, a segment goes once the Shipper
// says it is in the fleet's store, and only then: of three sealed
// segments, with the first shipped, the first file is gone and the
// others stay, with the one appended to; a lookup of the receipt it held
// answers E337 (wrapping fs.ErrNotExist), the others are found. Retain
// with RetainAll (the positive control of keeping) removes nothing
// however much was shipped.
func TestPruneShipped(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	jdir := s.Journal().Dir()
	r1, n1 := finishedIn(t, s)
	r2, n2 := finishedIn(t, s)
	r3, n3 := finishedIn(t, s)
	current := s.Journal().Stats().SegmentNum
	if err := s.Retain(Retention{All: true}, true); err != nil {
		t.Fatal(err)
	}
	s.Shipped(n3)
	if n, err := s.Prune(); n != 0 || err != nil {
		t.Fatalf("keeping all, shipped all: pruned %d (%v), want none", n, err)
	}
	if err := s.Retain(Retention{}, true); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.shipped = 0 // as a new Shipper: nothing shipped yet
	s.mu.Unlock()
	if n, err := s.Prune(); n != 0 || err != nil {
		t.Fatalf("nothing shipped: pruned %d (%v), want none", n, err)
	}
	s.Shipped(n1)
	if n, err := s.Prune(); n != 1 || err != nil {
		t.Fatalf("one shipped: pruned %d (%v), want 1", n, err)
	}
	want := []string{segName(n2), segName(n3), segName(current)}
	if got := segmentFiles(t, jdir); !slices.Equal(got, want) {
		t.Fatalf("segments on disk %q, want %q: the shipped one gone, the rest kept", got, want)
	}
	_, err := FindRun(dir, r1.RunID)
	if codes.CodeOf(err) != codes.E337 || !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), "shipped") {
		t.Fatalf("FindRun of the removed receipt: %v; want E337 saying shipped, not-exist", err)
	}
	if _, err := Find(dir, r1.RunID); codes.CodeOf(err) != codes.E337 {
		t.Fatalf("Find of the removed receipt: %v, want E337", err)
	}
	for _, r := range []*Receipt{r2, r3} {
		if got, err := FindRun(dir, r.RunID); err != nil || got.Outcome.Status != StatusOK {
			t.Fatalf("FindRun of a kept receipt: %v", err)
		}
	}
	s.Shipped(current + 5) // more than there is: the segment appended to stays all the same
	if n, err := s.Prune(); n != 2 || err != nil {
		t.Fatalf("all shipped: pruned %d (%v), want 2", n, err)
	}
	if got := segmentFiles(t, jdir); !slices.Equal(got, []string{segName(current)}) {
		t.Fatalf("segments on disk %q, want only the one appended to, %s", got, segName(current))
	}
}

// TestPruneKeepsRunsInFlight: a segment holding the skeleton of a run
// still in flight stays, whatever the retention lets go, until the run
// is finished (its finished record in a later segment).
func TestPruneKeepsRunsInFlight(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	rec := NewForSource("/p.vel", nil, budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	if err := s.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	n1, err := s.Journal().Seal()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Retain(Retention{}, true); err != nil {
		t.Fatal(err)
	}
	s.Shipped(n1)
	if n, err := s.Prune(); n != 0 || err != nil {
		t.Fatalf("in flight: pruned %d (%v), want none", n, err)
	}
	rec.Outcome = OutcomeOf(nil)
	s.Finish(rec)
	if n, err := s.Prune(); n != 1 || err != nil {
		t.Fatalf("finished: pruned %d (%v), want the skeleton's segment", n, err)
	}
	if got, err := FindRun(dir, rec.RunID); err != nil || got.Outcome.Status != StatusOK {
		t.Fatalf("the finished receipt, in the segment kept: %v", err)
	}
}

// TestPruneWithoutStore: with no store to ship to, the operator's
// retention lets segments go: by age (a segment sealed 8 days ago, on
// the store's clock, goes under 7d, one sealed now stays) and by size
// (the oldest go until the journal fits). Keeping nothing past shipping
// without shipping is refused, and the default, RetainAll, removes
// nothing.
func TestPruneWithoutStore(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		s := openStore(t, t.TempDir())
		if err := s.Retain(Retention{}, false); codes.CodeOf(err) != codes.E301 {
			t.Fatalf("RetainShipped without shipping: %v, want E301", err)
		}
	})
	t.Run("age", func(t *testing.T) {
		dir := t.TempDir()
		s := openStore(t, dir)
		jdir := s.Journal().Dir()
		r1, n1 := finishedIn(t, s)
		if err := s.Retain(Retention{All: true}, false); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Prune(); n != 0 || err != nil {
			t.Fatalf("keeping all: pruned %d (%v), want none", n, err)
		}
		if err := s.Retain(Retention{MaxAge: 7 * 24 * time.Hour}, false); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Prune(); n != 0 || err != nil {
			t.Fatalf("7d, sealed now: pruned %d (%v), want none", n, err)
		}
		r2, n2 := finishedIn(t, s)
		advance(s, 8*24*time.Hour)
		if n, err := s.Prune(); n != 1 || err != nil {
			t.Fatalf("7d: pruned %d (%v), want the segment sealed 8 days ago", n, err)
		}
		if got := segmentFiles(t, jdir); slices.Contains(got, segName(n1)) ||
			!slices.Contains(got, segName(n2)) {
			t.Fatalf("segments on disk %q: want %s gone, %s kept", got, segName(n1), segName(n2))
		}
		if _, err := FindRun(dir, r1.RunID); codes.CodeOf(err) != codes.E337 ||
			!strings.Contains(err.Error(), "7d") {
			t.Fatalf("FindRun of the removed receipt: %v, want E337 naming the retention", err)
		}
		if _, err := FindRun(dir, r2.RunID); err != nil {
			t.Fatalf("FindRun of the kept receipt: %v", err)
		}
	})
	t.Run("size", func(t *testing.T) {
		dir := t.TempDir()
		s := openStore(t, dir)
		jdir := s.Journal().Dir()
		var nums []int
		for range 4 {
			_, n := finishedIn(t, s)
			nums = append(nums, n)
		}
		infos, err := journal.SegmentInfos(jdir)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for _, in := range infos {
			total += in.Size
		}
		// Room for all but about one and a half segments: the two oldest go.
		bound := total - infos[0].Size - infos[1].Size/2
		s.mu.Lock()
		s.retain, s.shipping = &Retention{MaxBytes: bound}, false // below a MiB, as no flag can say
		s.mu.Unlock()
		if n, err := s.Prune(); n != 2 || err != nil {
			t.Fatalf("pruned %d (%v), want the two oldest", n, err)
		}
		got := segmentFiles(t, jdir)
		if slices.Contains(got, segName(nums[0])) || slices.Contains(got, segName(nums[1])) ||
			!slices.Contains(got, segName(nums[2])) || !slices.Contains(got, segName(nums[3])) {
			t.Fatalf("segments on disk %q: want the two oldest of %v gone, the rest kept", got, nums)
		}
	})
}

// advance moves the clock s ages its segments by (Store.now) d ahead,
// as d passing would: a monotonic reading moves with it.
func advance(s *Store, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = func() time.Time { return time.Now().Add(d) }
}

// TestPruneAgeIsNotTheWallClocks: a retention by age counts a segment's
// age on the store's own clock from when it was sealed, not from its
// modification time, which is the wall clock's: a segment sealed now
// whose time says 2 years ago (the clock stepped forward since, as NTP
// steps one that began at 1970 or an RTC a year behind) stays under 7d,
// its receipt found; one whose time says a day ahead (the clock stepped
// back since) is not kept past 7d for it. The control, in each: once 8
// days pass on the store's clock, the segment goes and its receipt is
// E337.
func TestPruneAgeIsNotTheWallClocks(t *testing.T) {
	for _, tt := range []struct {
		name  string
		mtime time.Time
	}{
		{name: "stamped 2 years back", mtime: time.Now().AddDate(-2, 0, 0)},
		{name: "stamped a day ahead", mtime: time.Now().Add(24 * time.Hour)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := openStore(t, dir)
			jdir := s.Journal().Dir()
			r1, n1 := finishedIn(t, s)
			if err := os.Chtimes(filepath.Join(jdir, segName(n1)), tt.mtime, tt.mtime); err != nil {
				t.Fatal(err)
			}
			if err := s.Retain(Retention{MaxAge: 7 * 24 * time.Hour}, false); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Prune(); n != 0 || err != nil {
				t.Fatalf("7d, sealed now: pruned %d (%v), want none", n, err)
			}
			if got := segmentFiles(t, jdir); !slices.Contains(got, segName(n1)) {
				t.Fatalf("segments on disk %q: want %s kept", got, segName(n1))
			}
			if _, err := FindRun(dir, r1.RunID); err != nil {
				t.Fatalf("FindRun of the kept receipt: %v", err)
			}
			advance(s, 8*24*time.Hour)
			if n, err := s.Prune(); n != 1 || err != nil {
				t.Fatalf("7d, sealed 8 days ago: pruned %d (%v), want the segment", n, err)
			}
			if _, err := FindRun(dir, r1.RunID); codes.CodeOf(err) != codes.E337 {
				t.Fatalf("FindRun of the removed receipt: %v, want E337", err)
			}
		})
	}
}

// TestPruneAgeFromItsSeal: a segment's age under a retention by age runs
// from when a Prune first found it sealed, not from when it was first
// seen at all: the segment appended to is not aged while it is written
// (its receipts are younger than the time it has been open), and one
// exactly as old as the retention is kept, as a segment whose
// modification time said so was before. The store's clock is set, not
// waited on. The control: a moment past the retention, it goes, and its
// receipt is said to be no longer kept.
func TestPruneAgeFromItsSeal(t *testing.T) {
	const day, maxAge = 24 * time.Hour, 7 * 24 * time.Hour
	dir := t.TempDir()
	s := openStore(t, dir)
	t0 := time.Now()
	at := func(d time.Duration) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.now = func() time.Time { return t0.Add(d) }
	}
	prune := func(when string, want int) {
		t.Helper()
		if n, err := s.Prune(); n != want || err != nil {
			t.Fatalf("%s: pruned %d (%v), want %d", when, n, err, want)
		}
	}
	at(0)
	r1 := finished(t, s)
	if err := s.Retain(Retention{MaxAge: maxAge}, false); err != nil {
		t.Fatal(err)
	}
	prune("day 0, the segment appended to", 0)
	at(6 * day)
	if _, err := s.Journal().Seal(); err != nil {
		t.Fatal(err)
	}
	finished(t, s)
	prune("day 6, sealed now", 0)
	at(8 * day)
	prune("day 8, sealed 2 days ago (opened 8 days ago)", 0)
	at(6*day + maxAge)
	prune("sealed exactly 7 days ago", 0)
	if _, err := FindRun(dir, r1.RunID); err != nil {
		t.Fatalf("FindRun of the kept receipt: %v", err)
	}
	at(6*day + maxAge + time.Nanosecond)
	prune("a moment past 7 days since sealed", 1)
	if _, err := FindRun(dir, r1.RunID); codes.CodeOf(err) != codes.E337 {
		t.Fatalf("FindRun of the removed receipt: %v, want E337", err)
	}
}

// FuzzReadRemoved feeds readRemoved a journal's removed.json holding
// arbitrary bytes (a file a program could have written there): it must
// not panic, and what it accepts counts at least one segment removed;
// a file past its bound is not read.
func FuzzReadRemoved(f *testing.F) {
	for _, seed := range []string{
		`{"segments":2,"through":"2026-12-01T10:00:00Z","why":"shipped to the fleet's store"}`,
		`{"segments":0}`, `{"segments":-1}`, `{"segments":1e400}`, `{"through":"not a time"}`,
		`{`, ``, `null`, `[]`, `{"segments":1,"why":"\u001b]52;c;aGk=\u0007"}`,
		`{"segments":1,"why":"` + strings.Repeat("x", maxRetentionFileBytes) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, retentionFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		note, ok := readRemoved(dir)
		if ok && (note.Segments <= 0 || len(data) > maxRetentionFileBytes) {
			t.Fatalf("accepted %d bytes holding %+v", len(data), note)
		}
		if !ok && note != (removedNote{}) {
			t.Fatalf("refused, yet returned %+v", note)
		}
	})
}

// openStore is the store in dir, opened for the test.
func openStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRemoveEndedJournal: another process's journal in the store's
// journal directory, whose owner kept its receipts only until shipped
// (as its own Retain marked it), is removed; the controls: one whose
// owner kept them all, the journal directory itself and this process's
// own journal are left (the last two while its own is marked), and a
// journal outside the store is refused.
func TestRemoveEndedJournal(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Retain(Retention{}, true); err != nil { // marks this process's journal too
		t.Fatal(err)
	}
	root := filepath.Join(dir, journalDir)
	marked := filepath.Join(root, ownJournalPrefix+"00000000000000aa")
	kept := filepath.Join(root, ownJournalPrefix+"00000000000000cc")
	outside := filepath.Join(t.TempDir(), ownJournalPrefix+"00000000000000bb")
	for _, d := range []string{marked, kept, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{marked, outside} {
		if err := os.WriteFile(filepath.Join(d, UntilShippedFile), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name        string
		dir         string
		wantRemoved bool
		wantErr     bool
	}{
		{name: "the journal directory itself", dir: root},
		{name: "this process's own", dir: s.Journal().Dir(), wantErr: true},
		{name: "a process journal outside the store", dir: outside, wantErr: true},
		{name: "another process's, kept past shipping", dir: kept},
		{name: "another process's, kept until shipped", dir: marked, wantRemoved: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			removed, err := s.RemoveEndedJournal(tt.dir)
			_, serr := os.Stat(tt.dir)
			if gone := os.IsNotExist(serr); gone != tt.wantRemoved || removed != tt.wantRemoved ||
				(err != nil) != tt.wantErr {
				t.Fatalf("RemoveEndedJournal(%s): %v, %v, gone %v; want removed %v, an error %v",
					tt.dir, removed, err, gone, tt.wantRemoved, tt.wantErr)
			}
		})
	}
	// Retain marks this process's journal, and unmarks it when told to
	// keep more.
	mark := filepath.Join(s.Journal().Dir(), UntilShippedFile)
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("kept until shipped, the journal is not marked: %v", err)
	}
	if err := s.Retain(Retention{All: true}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Errorf("all kept, the journal is still marked: %v", err)
	}
}

// TestSealForCountsRecords: a retention by size seals the segment
// appended to once its records, not its file, pass an eighth of the
// bound: the zeros its journal laid past them (journal.Options.Exclusive)
// count for nothing. The control: a bound an eighth of which the records
// pass is sealed at.
func TestSealForCountsRecords(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	for s.Journal().Stats().Held < 32<<10 {
		finished(t, s)
	}
	st := s.Journal().Stats()
	waitLaid(t, s.Journal().Dir(), st)
	fi, err := os.Stat(st.Segment)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		maxBytes   int64
		wantSealed bool
	}{
		{name: "records under an eighth, file over", maxBytes: 8 * (st.Held + (fi.Size()-st.Held)/2)},
		{name: "records over an eighth", maxBytes: 8 * (st.Held - 1), wantSealed: true},
	}
	for _, tt := range tests {
		before := s.Journal().Stats().SegmentNum
		if err := s.sealFor(Retention{MaxBytes: tt.maxBytes}); err != nil {
			t.Fatal(err)
		}
		if sealed := s.Journal().Stats().SegmentNum != before; sealed != tt.wantSealed {
			t.Errorf("%s: sealed %v, want %v", tt.name, sealed, tt.wantSealed)
		}
	}
}

// TestPruneCountsRecords: a retention by size counts, of the segment
// appended to, what its records hold, not the zeros its journal laid
// past them: a bound its receipts are within removes nothing; the
// control, a byte less, removes the oldest segment.
func TestPruneCountsRecords(t *testing.T) {
	for _, tt := range []struct {
		name        string
		under       int64 // the bound, under what the receipts hold
		wantRemoved int
	}{
		{name: "within", under: 0, wantRemoved: 0},
		{name: "a byte over", under: 1, wantRemoved: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Sealed segments of more than 8 times what the segment
			// appended to holds: the prune does not seal it first.
			s := openStore(t, t.TempDir())
			for range 64 {
				finishedIn(t, s)
			}
			for s.Journal().Stats().Held < 9<<10 {
				finished(t, s)
			}
			st := s.Journal().Stats()
			infos := waitLaid(t, s.Journal().Dir(), st)
			var total int64
			for _, in := range infos {
				if in.Num != st.SegmentNum {
					total += in.Size
				}
			}
			total += st.Held
			s.mu.Lock()
			s.retain, s.shipping = &Retention{MaxBytes: total - tt.under}, false
			s.mu.Unlock()
			if n, err := s.Prune(); n != tt.wantRemoved || err != nil {
				t.Errorf("pruned %d (%v), want %d", n, err, tt.wantRemoved)
			}
		})
	}
}

// waitLaid waits, a while at most, until the journal's committer has
// laid zeros past the records of the segment st says is appended to, and
// returns the journal's segments then.
func waitLaid(t *testing.T, dir string, st journal.Stats) []journal.SegmentInfo {
	t.Helper()
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(time.Millisecond) {
		infos, err := journal.SegmentInfos(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			if in.Num == st.SegmentNum && in.Size > st.Held {
				return infos
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no zeros laid past the %d bytes of segment %d", st.Held, st.SegmentNum)
		}
	}
}

// FuzzParseRetention: a retention ParseRetention takes (a server's
// --keep-receipts) reads back as itself from its String, which a
// server's messages write; and what it refuses says the forms.
func FuzzParseRetention(f *testing.F) {
	for _, seed := range []string{"all", "shipped", "7d", "36h", "90m", "512MiB", "2GiB",
		"36500d", "36501d", "1048576MiB", "1024GiB", "1025GiB", "2562024h",
		"2562047h47m16.854775807s", "1ns", "0d", "-1h", "512MB", "", "+7d", "07d", "1e3h"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRetention(s)
		if err != nil {
			if !strings.Contains(err.Error(), RetentionForm) {
				t.Fatalf("ParseRetention(%q): %v, not saying the forms", s, err)
			}
			return
		}
		back, err := ParseRetention(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRetention(%q) = %+v, written %q, read back as %+v, %v", s, r,
				r.String(), back, err)
		}
	})
}

// TestParseRetentionSizeBound: a size is at most 1 TiB, in either unit:
// at the bound it is read (the control), and past it the refusal names
// the bound. Before, a size past it was refused as "not a size of 1 or
// more GiB", which 1025GiB is, and named no bound to keep within.
func TestParseRetentionSizeBound(t *testing.T) {
	for _, tt := range []struct{ at, past, bound string }{
		{"1024GiB", "1025GiB", "1 to 1024 GiB"},
		{"1048576MiB", "1048577MiB", "1 to 1048576 MiB"},
	} {
		if r, err := ParseRetention(tt.at); err != nil || r.MaxBytes != 1<<40 {
			t.Errorf("ParseRetention(%q) = %+v, %v: want 1 TiB", tt.at, r, err)
		}
		if _, err := ParseRetention(tt.past); err == nil || !strings.Contains(err.Error(), tt.bound) {
			t.Errorf("ParseRetention(%q): %v; want it refused, naming %q", tt.past, err, tt.bound)
		}
	}
}
