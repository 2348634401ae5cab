package receipt

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt/journal"
)

// TestAnotherRunUnderARunsName: a journal record or a receipt file whose
// name (its key) names one run and whose content is another run's
// receipt is named and passed over: listed, the run it names keeps its
// own receipt (the last record before it under its key) and the other
// run is listed once; looked up, the run it names is found as its own
// receipt, or not found when it has none, and never as the other run.
// The control: the same records under their own names are read as each
// run's receipt.
func TestAnotherRunUnderARunsName(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	a := receiptAt(t, "/a.vel", core.Full, now)
	b := receiptAt(t, "/b.vel", core.Partial, now.Add(time.Millisecond))
	for _, r := range []*Receipt{a, b} {
		s.Finish(r)
		if _, err := r.Stored(); err != nil {
			t.Fatal(err)
		}
	}
	// Control: each run found, and listed once, as itself.
	checkRuns(t, dir, map[string]string{a.RunID: "/a.vel", b.RunID: "/b.vel"}, 0)

	// A journal of another process holding, under a's key, b's receipt.
	plant(t, filepath.Join(dir, journalDir, ownJournalPrefix+"ffffffffffffffff"),
		a.fileName(), b.StoredJSON())
	checkRuns(t, dir, map[string]string{a.RunID: "/a.vel", b.RunID: "/b.vel"}, 1)

	// The same in the journal that holds a's own records, after them: a's
	// last record before it is its receipt.
	alone := t.TempDir()
	jdir := filepath.Join(alone, journalDir, ownJournalPrefix+"eeeeeeeeeeeeeeee")
	plant(t, jdir, a.fileName(), a.StoredJSON())
	plant(t, jdir, b.fileName(), b.StoredJSON())
	checkRuns(t, alone, map[string]string{a.RunID: "/a.vel", b.RunID: "/b.vel"}, 0)
	plant(t, jdir, a.fileName(), b.StoredJSON())
	checkRuns(t, alone, map[string]string{a.RunID: "/a.vel", b.RunID: "/b.vel"}, 1)

	// A receipt file named as a run that has no receipt, holding b's: the
	// run is not found, and b is listed once.
	c := receiptAt(t, "/c.vel", core.Full, now.Add(-time.Hour))
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	files := t.TempDir()
	if _, err := b.Write(files); err != nil {
		t.Fatal(err)
	}
	checkRuns(t, files, map[string]string{b.RunID: "/b.vel"}, 0)
	if err := os.WriteFile(filepath.Join(files, c.fileName()), data, 0o600); err != nil {
		t.Fatal(err)
	}
	checkRuns(t, files, map[string]string{b.RunID: "/b.vel"}, 1)
	_, err = FindRun(files, c.RunID)
	if codes.CodeOf(err) != codes.E317 || !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), "its content run "+b.RunID) {
		t.Errorf("FindRun of a run whose name holds another's receipt: %v; want E317 not found, "+
			"naming it", err)
	}

	// The same in a journal: a record under the name of a run that has no
	// receipt, holding b's, is named by the lookup that found nothing.
	planted := t.TempDir()
	plant(t, filepath.Join(planted, journalDir, ownJournalPrefix+"dddddddddddddddd"),
		c.fileName(), b.StoredJSON())
	_, err = FindRun(planted, c.RunID)
	if codes.CodeOf(err) != codes.E317 || !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), "its content run "+b.RunID) {
		t.Errorf("FindRun of a run whose journal record holds another's receipt: %v; want E317 "+
			"not found, naming it", err)
	}
}

// plant appends a record of key and payload to the journal in jdir.
func plant(t *testing.T, jdir, key string, payload []byte) {
	t.Helper()
	j, err := journal.Open(jdir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(key, payload); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkRuns checks that Scan lists in dir the runs of want (run id:
// program), each once, naming skipped files or records, and that FindRun
// finds each as itself.
func checkRuns(t *testing.T, dir string, want map[string]string, skipped int) {
	t.Helper()
	runs, passed, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range runs {
		if _, twice := got[r.RunID]; twice {
			t.Errorf("run %s listed twice", r.RunID)
		}
		got[r.RunID] = r.Program.Path
		if !strings.HasSuffix(r.Path, "-"+r.RunID+".json") {
			t.Errorf("run %s listed from %s, a name of another run", r.RunID, r.Path)
		}
	}
	if len(got) != len(want) {
		t.Errorf("listed %v, want %v", got, want)
	}
	for id, program := range want {
		if got[id] != program {
			t.Errorf("run %s listed as %q, want %q", id, got[id], program)
		}
		r, err := FindRun(dir, id)
		if err != nil || r.RunID != id || r.Program.Path != program {
			t.Errorf("FindRun(%s): run %s of %q (%v); want its own receipt", id, r.RunID,
				func() string {
					if r.Receipt == nil {
						return ""
					}
					return r.Program.Path
				}(), err)
		}
	}
	if len(passed) != skipped {
		t.Errorf("skipped %v, want %d named", passed, skipped)
	}
	for _, p := range passed {
		if !strings.Contains(p.Why, "another run's receipt under this run's name") {
			t.Errorf("skipped %s: %s; want it named as another run's receipt", p.Path, p.Why)
		}
	}
}
