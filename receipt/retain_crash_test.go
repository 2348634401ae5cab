package receipt

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
)

// crashedIn appends to s the receipt of a run whose worker crashed, its
// crash report kept beside it in dir, and seals the segment it is in.
func crashedIn(t *testing.T, s *Store, dir string) (report string, seg int) {
	t.Helper()
	rec := NewForSource("/p.vel", nil, budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	if err := s.Reserve(rec); err != nil {
		t.Fatal(err)
	}
	report = rec.KeepCrashReport(dir, "fatal error: runtime: out of memory\n")
	if report == "" {
		t.Fatal("no crash report kept")
	}
	rec.Outcome = OutcomeOf(nil)
	s.Finish(rec)
	seg, err := s.Journal().Seal()
	if err != nil {
		t.Fatal(err)
	}
	return report, seg
}

// TestPruneTakesTheCrashReports: a crash report kept beside a receipt
// goes when the retention removes the segment that held the receipt; the
// report of a receipt in a segment kept stays (the control), and so does
// a command-line run's, whose receipt is a file of its own. Before, the
// retention left every report: a server under --keep-receipts kept a
// file for each run that crashed or ran out of memory, for ever.
func TestPruneTakesTheCrashReports(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	if err := s.Retain(Retention{MaxAge: 7 * 24 * time.Hour}, false); err != nil {
		t.Fatal(err)
	}
	old, _ := crashedIn(t, s, dir)
	if n, err := s.Prune(); n != 0 || err != nil { // the segment is found sealed now
		t.Fatalf("pruned %d (%v), want none yet", n, err)
	}
	kept, _ := crashedIn(t, s, dir)
	cli := filepath.Join(dir,
		"20200101T000000.000000000Z-0123456789abcdef0123456789abcdef0123.crash.txt")
	if err := os.WriteFile(cli, []byte("a command-line run's report\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	advance(s, 8*24*time.Hour)
	if n, err := s.Prune(); n != 1 || err != nil {
		t.Fatalf("pruned %d (%v), want the segment sealed 8 days ago", n, err)
	}
	if _, err := os.Lstat(old); !os.IsNotExist(err) {
		t.Errorf("the crash report of a receipt the retention removed is still there (%v): %s", err,
			old)
	}
	for _, p := range []string{kept, cli} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("a crash report whose receipt is kept is gone: %v", err)
		}
	}
}

// TestPruneTakesNoFileOutsideItsDirectory: a key in a pruned segment that
// begins as a receipt's and ends as one but names a path (a journal
// another process of the user wrote, or one damaged) removes nothing:
// the crash report its name leads to lies outside the receipts
// directory, and stays. The control: the report of a receipt beside it,
// in the same segment, is removed with the segment.
func TestPruneTakesNoFileOutsideItsDirectory(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "receipts")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const id = "0123456789abcdef0123456789abcdef0123"
	victim := filepath.Join(top, "victim-"+id+".crash.txt")
	if err := os.WriteFile(victim, []byte("not the store's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dir)
	if err := s.Retain(Retention{MaxAge: 7 * 24 * time.Hour}, false); err != nil {
		t.Fatal(err)
	}
	climbing := "20200101T000000.000000000Z/../../victim-" + id + ".json"
	if _, ok := RunIDOfKey(climbing); !ok {
		t.Fatalf("%s reads as no receipt's key: the test proves nothing", climbing)
	}
	if err := s.Journal().Append(climbing, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	report, _ := crashedIn(t, s, dir)
	if n, err := s.Prune(); n != 0 || err != nil { // the segment is found sealed now
		t.Fatalf("pruned %d (%v), want none yet", n, err)
	}
	advance(s, 8*24*time.Hour)
	if n, err := s.Prune(); n != 1 || err != nil {
		t.Fatalf("pruned %d (%v), want the segment sealed 8 days ago", n, err)
	}
	if _, err := os.Lstat(victim); err != nil {
		t.Errorf("a file outside the receipts directory, named by a key in a pruned segment, "+
			"was removed: %v", err)
	}
	if _, err := os.Lstat(report); !os.IsNotExist(err) {
		t.Errorf("the crash report of a receipt in the pruned segment is still there (%v): %s",
			err, report)
	}
}
