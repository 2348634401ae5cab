package receipt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt/journal"
)

// TestStore: a reserved receipt reads as unfinished (E327) until it is
// finished, then as finished; the journal's receipts are listed, found
// and compared beside the receipt files of the same directory; the path
// Stored gives a finished receipt is the one Find names it by.
func TestStore(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := OpenStore(dir); again != s {
		t.Error("a second OpenStore of one directory opened a second journal")
	}
	rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	if err := s.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	got, err := Find(dir, rec.RunID)
	if err != nil || got.Outcome.Status != StatusUnfinished || got.Outcome.Code != codes.E327 {
		t.Fatalf("reserved: %+v, %v; want unfinished, E327", got.Receipt, err)
	}
	rec.Outcome = OutcomeOf(nil)
	rec.SetConfinement(core.Result{Level: core.Full, Reason: "test"})
	s.Finish(rec)
	stored, err := rec.Stored()
	if err != nil {
		t.Fatal(err)
	}
	got, err = Find(dir, rec.RunID)
	if err != nil || got.Outcome.Status != StatusOK {
		t.Fatalf("finished: %+v, %v; want ok", got.Receipt, err)
	}
	if stored != got.Path {
		t.Errorf("Stored says %s, Find %s: want one path", stored, got.Path)
	}

	// A receipt file beside the journal, of the same program, one level
	// lower: both are listed, and the diff names the weaker.
	file := receiptAt(t, "/p.vel", core.Partial, rec.Timings.Started.Add(time.Minute))
	if _, err := file.Write(dir); err != nil {
		t.Fatal(err)
	}
	runs, err := List(dir)
	if err != nil || len(runs) != 2 {
		t.Fatalf("listed %d (%v), want the journal's and the file's", len(runs), err)
	}
	if d := DiffLevels(runs); len(d) != 1 || !d[0].Weaker || d[0].Run.RunID != file.RunID {
		t.Errorf("diff %v, want the file's run, weaker", d)
	}
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
}

// TestStoreDamage: bytes written into the journal that are no record are
// named as passed over, and every receipt around them is still read.
func TestStoreDamage(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		rec := receiptAt(t, "/q.vel", core.Full, time.Now().UTC())
		s.Finish(rec)
		if _, err := rec.Stored(); err != nil {
			t.Fatal(err)
		}
	}
	segs, _ := filepath.Glob(filepath.Join(s.Journal().Dir(), "*.journal"))
	if len(segs) != 1 {
		t.Fatalf("segments %v, want one", segs)
	}
	f, err := os.OpenFile(segs[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not a record at all")
	f.Close()
	runs, skipped, err := Scan(dir)
	if err != nil || len(runs) != 3 || len(skipped) != 1 {
		t.Errorf("%d runs, %d skipped (%v), want 3 and the damage named", len(runs), len(skipped), err)
	}
}

func receiptAt(t *testing.T, program string, level core.Level, started time.Time) *Receipt {
	t.Helper()
	r := NewForSource(program, []byte("x"), budget.Budget{}, nil)
	r.Timings.Started = started
	r.Outcome = OutcomeOf(nil)
	r.SetConfinement(core.Result{Level: level, Reason: "test"})
	return r
}

// TestValidRunID: what a run id may be, each refusal beside ids that pass.
func TestValidRunID(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{name: "a made id", id: newRunID(), want: true},
		{name: "short hex", id: "0a", want: true},
		{name: "empty", id: ""},
		{name: "upper case", id: "0A"},
		{name: "a path", id: "../x"},
		{name: "a separator", id: "0a-1b"},
		{name: "too long", id: strings.Repeat("a", 65)},
		{name: "the longest", id: strings.Repeat("a", 64), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidRunID(tt.id); got != tt.want {
				t.Errorf("ValidRunID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

// TestRunIDOfKey: a key names the run id after its last "-", which must
// be one (ValidRunID), and ends in ".json"; what comes before the id is
// the start time, which is not read, so any, even none, will do.
func TestRunIDOfKey(t *testing.T) {
	tests := []struct {
		name   string
		key    string
		wantID string
		wantOK bool
	}{
		{name: "a key", key: "20260301T120000.000000000Z-0123abcd.json",
			wantID: "0123abcd", wantOK: true},
		{name: "nothing before the id", key: "-0123abcd.json", wantID: "0123abcd", wantOK: true},
		{name: "no '-' before the id", key: "0123abcd.json"},
		{name: "not a run id", key: "20260301T120000.000000000Z-XYZ.json"},
		{name: "no .json", key: "20260301T120000.000000000Z-0123abcd.txt"},
		{name: "empty", key: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if id, ok := RunIDOfKey(tt.key); id != tt.wantID || ok != tt.wantOK {
				t.Errorf("RunIDOfKey(%q) = %q, %v; want %q, %v", tt.key, id, ok, tt.wantID, tt.wantOK)
			}
		})
	}
}

// TestNewRunIDIsRandom: run ids are 16 hexadecimal digits, distinct, and
// random: none is the clock's reading as it was made, which another
// process could guess.
func TestNewRunIDIsRandom(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		before := time.Now().UnixNano()
		id := newRunID()
		after := time.Now().UnixNano()
		v, err := strconv.ParseUint(id, 16, 64)
		if err != nil || len(id) != 16 || !ValidRunID(id) {
			t.Fatalf("run id %q (%v), want 16 lower-case hexadecimal digits", id, err)
		}
		if seen[id] {
			t.Fatalf("run id %q made twice", id)
		}
		seen[id] = true
		if n := int64(v); n >= before && n <= after {
			t.Fatalf("run id %q is the clock's reading, %d", id, n)
		}
	}
}

// TestScanJournalNotADirectory: a receipts directory whose "journal" is
// not a directory has no journal: Scan and FindRun read its receipt
// files, as they would beside no journal at all.
func TestScanJournalNotADirectory(t *testing.T) {
	tests := []struct {
		name    string
		journal string // what the directory's "journal" is: "file", or "" for nothing
	}{
		{name: "no journal"},
		{name: "a file named journal", journal: "file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.journal == "file" {
				if err := os.WriteFile(filepath.Join(dir, journalDir), []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			rec := receipt("/p/a.vel", "0123abcd", 0, core.Full, StatusOK)
			want, err := rec.Write(dir)
			if err != nil {
				t.Fatal(err)
			}
			runs, skipped, err := Scan(dir)
			if err != nil || len(runs) != 1 || runs[0].Path != want || len(skipped) != 0 {
				t.Errorf("Scan: %+v, skipped %+v, %v; want the receipt file alone", runs, skipped, err)
			}
			if got, err := FindRun(dir, rec.RunID); err != nil || got.Path != want {
				t.Errorf("FindRun: %+v, %v; want the receipt file", got, err)
			}
		})
	}
}

// TestStoreInFlight: a receipt is in flight from its reservation until it
// is finished, and its key names its run id; a receipt finished without a
// reservation (a refused run) is never in flight.
func TestStoreInFlight(t *testing.T) {
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	rec.Tenant = "acme"
	if s.InFlight(rec.Key()) {
		t.Fatal("in flight before its reservation")
	}
	if err := s.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	if !s.InFlight(rec.Key()) {
		t.Error("not in flight once reserved")
	}
	rec.Outcome = OutcomeOf(nil)
	s.Finish(rec)
	if s.InFlight(rec.Key()) {
		t.Error("still in flight once finished")
	}
	refused := NewForSource("/p.vel", nil, budget.Budget{}, nil)
	s.Finish(refused)
	if s.InFlight(refused.Key()) {
		t.Error("a receipt finished without a reservation is in flight")
	}
	if id, ok := RunIDOfKey(rec.Key()); !ok || id != rec.RunID {
		t.Errorf("RunIDOfKey(%q) = %q, %v; want %q", rec.Key(), id, ok, rec.RunID)
	}
	for _, key := range []string{"", "x.json", "20260101T000000.000000000Z-XYZ.json", "a-0123.txt"} {
		if id, ok := RunIDOfKey(key); ok {
			t.Errorf("RunIDOfKey(%q) = %q, true; want not a key", key, id)
		}
	}
	got, err := Find(s.dir, rec.RunID)
	if err != nil || got.Tenant != "acme" {
		t.Errorf("the stored receipt's tenant: %+v, %v; want acme", got, err)
	}
}

// TestStoreOwnJournal: a store appends to a journal of its own process,
// locked while the process lives, inside the receipts directory's
// journal directory; Scan and Find read it beside the records kept in
// the journal directory itself (by a Sabline from before), and beside
// the journal of another process.
func TestStoreOwnJournal(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	jdir := s.Journal().Dir()
	if filepath.Dir(jdir) != filepath.Join(dir, journalDir) ||
		!strings.HasPrefix(filepath.Base(jdir), ownJournalPrefix) {
		t.Fatalf("the store's journal is %s, not a journal of its own in %s", jdir, dir)
	}
	if _, err := journal.TryLock(jdir); !errors.Is(err, journal.ErrLocked) {
		t.Fatalf("the lock of the store's own journal taken again: %v; want ErrLocked", err)
	}
	own := receiptAt(t, "/own.vel", core.Full, time.Now().UTC())
	s.Finish(own)
	// Records of a Sabline from before, in the journal directory itself,
	// and of another process, in a journal of its own.
	old := receiptAt(t, "/old.vel", core.Full, time.Now().UTC())
	other := receiptAt(t, "/other.vel", core.Full, time.Now().UTC())
	for _, c := range []struct {
		dir string
		rec *Receipt
	}{
		{filepath.Join(dir, journalDir), old},
		{filepath.Join(dir, journalDir, ownJournalPrefix+"00000000000000ab"), other},
	} {
		j, err := journal.Open(c.dir, journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(c.rec)
		if err := j.Append(c.rec.fileName(), data); err != nil {
			t.Fatal(err)
		}
		j.Close()
	}
	dirs, err := JournalDirs(dir)
	if err != nil || len(dirs) != 3 {
		t.Fatalf("journals %v (%v), want the directory, the store's and the other's", dirs, err)
	}
	runs, skipped, err := Scan(dir)
	if err != nil || len(runs) != 3 || len(skipped) != 0 {
		t.Fatalf("%d runs, %v skipped (%v), want 3", len(runs), skipped, err)
	}
	for _, r := range []*Receipt{own, old, other} {
		got, err := Find(dir, r.RunID)
		if err != nil || got.RunID != r.RunID {
			t.Errorf("Find %s: %v, %v", r.RunID, got.RunID, err)
		}
	}
}

// TestStoreStoredJSON: a receipt a store finished carries the JSON the
// journal holds for it, byte for byte, which is json.Marshal of the
// receipt as it was finished; a receipt only reserved, and one whose
// append failed, carries none; a change made after Finish is in neither
// the journal nor the bytes, nor do the receipts the store writes next.
func TestStoreStoredJSON(t *testing.T) {
	open := func(t *testing.T) *Store {
		s, err := OpenStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	closed := func(t *testing.T) *Store {
		dir := t.TempDir()
		j, err := journal.Open(filepath.Join(dir, journalDir), journal.Options{})
		if err != nil {
			t.Fatal(err)
		}
		j.Close()
		return &Store{dir: dir, j: j, inFlight: map[string]struct{}{}}
	}
	tests := []struct {
		name       string
		store      func(t *testing.T) *Store
		finish     bool
		wantStored bool
		wantErr    bool // Stored says the receipt was not kept
	}{
		{name: "finished", store: open, finish: true, wantStored: true},
		{name: "reserved only", store: open},
		{name: "the append failed", store: closed, finish: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.store(t)
			rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
			rec.Timings.Started = time.Now().UTC()
			rec.RunParameters.Durability = Background
			_ = s.Reserve(rec)
			if tt.finish {
				rec.Outcome = OutcomeOf(nil)
				s.Finish(rec)
			}
			got := rec.StoredJSON()
			if _, err := rec.Stored(); (err != nil) != tt.wantErr {
				t.Fatalf("Stored: %v; want an error %v", err, tt.wantErr)
			}
			if !tt.wantStored {
				if got != nil {
					t.Fatalf("StoredJSON = %s; want none", got)
				}
				return
			}
			want, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("StoredJSON:\n%s\nwant json.Marshal of the receipt:\n%s", got, want)
			}
			if err := s.Sync(); err != nil {
				t.Fatal(err)
			}
			var kept []byte
			if _, err := journal.Scan(s.Journal().Dir(), func(key string, payload []byte) error {
				if key == rec.Key() {
					kept = append([]byte(nil), payload...)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if string(kept) != string(got) {
				t.Fatalf("the journal's last record of the run:\n%s\nwant StoredJSON:\n%s", kept, got)
			}
			rec.Tenant = "after-finish"
			if string(rec.StoredJSON()) != string(want) {
				t.Errorf("StoredJSON changed with the receipt after Finish: %s", rec.StoredJSON())
			}
			// The store's next receipts, encoded where it encodes every
			// receipt, leave these bytes as they were.
			for range 3 {
				next := NewForSource("/q.vel", []byte("print(2)\n"), budget.Budget{},
					[]string{"another run's argument"})
				next.Timings.Started = time.Now().UTC()
				next.RunParameters.Durability = Background
				if err := s.Reserve(next); err != nil {
					t.Fatal(err)
				}
				next.Outcome = OutcomeOf(nil)
				s.Finish(next)
			}
			if string(rec.StoredJSON()) != string(want) {
				t.Errorf("StoredJSON changed as the store wrote other receipts:\n%s\nwant\n%s",
					rec.StoredJSON(), want)
			}
		})
	}
}
