//go:build unix

package receipt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
)

// anotherUID is a user who is neither the test's nor root: the attacker.
const anotherUID = 54321

// chownTree gives dir and everything beneath it to uid.
func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReceiptsOwnedByAnother: another user who made the receipts
// directory first (at a shared place --receipts names, mode 0777) can
// remove, replace and plant every receipt in it: a run neither reserves
// nor writes its receipt there, no store opens there, and no reader lists
// or finds what is in it (E317, naming the owner). In a directory of ours
// that others may write in (an emptyDir, mode 0777), a receipt file and a
// journal that another user made are passed over and named, never listed
// nor found as a run. The controls: the same directory, file and journal,
// ours, are written, listed and found.
func TestReceiptsOwnedByAnother(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to give a directory to another user")
	}
	now := time.Now().UTC()

	// Made first by another user, open to all.
	theirs := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(theirs, 0o777); err != nil {
		t.Fatal(err)
	}
	forged := receiptAt(t, "/forged.vel", core.Full, now)
	if _, err := forged.Write(theirs); err != nil { // ours still: written
		t.Fatal(err)
	}
	chownTree(t, theirs, anotherUID)
	rec := receiptAt(t, "/p.vel", core.Full, now.Add(time.Millisecond))
	if _, err := rec.Reserve(theirs); codes.CodeOf(err) != codes.E317 ||
		!strings.Contains(err.Error(), "owned by uid 54321") {
		t.Errorf("Reserve in another user's directory: %v; want E317 naming its owner", err)
	}
	if _, err := rec.Write(theirs); codes.CodeOf(err) != codes.E317 {
		t.Errorf("Write in another user's directory: %v; want E317", err)
	}
	if _, err := OpenStore(theirs); codes.CodeOf(err) != codes.E317 {
		t.Errorf("OpenStore of another user's directory: %v; want E317", err)
	}
	if entries, _ := os.ReadDir(theirs); len(entries) != 1 {
		t.Errorf("another user's directory holds %d entries, want the one planted", len(entries))
	}
	if runs, _, err := Scan(theirs); codes.CodeOf(err) != codes.E317 || len(runs) != 0 {
		t.Errorf("Scan of another user's directory: %d runs, %v; want none, E317", len(runs), err)
	}
	if got, err := FindRun(theirs, forged.RunID); codes.CodeOf(err) != codes.E317 ||
		got.Receipt != nil {
		t.Errorf("FindRun in another user's directory: found %q, %v; want E317", got.Path, err)
	}
	// The control: the same directory, ours again, is written and read.
	chownTree(t, theirs, 0)
	if _, err := rec.Write(theirs); err != nil {
		t.Fatalf("Write in our own directory: %v", err)
	}
	checkRuns(t, theirs, map[string]string{forged.RunID: "/forged.vel", rec.RunID: "/p.vel"}, 0)

	// Ours, open to all: another user plants a receipt file and a
	// process's journal.
	ours := t.TempDir()
	if err := os.Chmod(ours, 0o777); err != nil {
		t.Fatal(err)
	}
	own := receiptAt(t, "/own.vel", core.Partial, now)
	if _, err := own.Write(ours); err != nil {
		t.Fatal(err)
	}
	planted := receiptAt(t, "/planted.vel", core.Full, now.Add(time.Second))
	p, err := planted.Write(ours)
	if err != nil {
		t.Fatal(err)
	}
	inJournal := receiptAt(t, "/journal.vel", core.Full, now.Add(2*time.Second))
	data, err := inJournal.indented()
	if err != nil {
		t.Fatal(err)
	}
	jdir := filepath.Join(ours, journalDir, ownJournalPrefix+"dddddddddddddddd")
	plant(t, jdir, inJournal.fileName(), data)
	// The control: ours, all three are receipts.
	checkRuns(t, ours, map[string]string{own.RunID: "/own.vel", planted.RunID: "/planted.vel",
		inJournal.RunID: "/journal.vel"}, 0)

	if err := os.Lchown(p, anotherUID, anotherUID); err != nil {
		t.Fatal(err)
	}
	chownTree(t, jdir, anotherUID)
	checkOwnRuns(t, ours, map[string]string{own.RunID: "/own.vel"}, 2)
	for _, id := range []string{planted.RunID, inJournal.RunID} {
		if got, err := FindRun(ours, id); !errors.Is(err, fs.ErrNotExist) || got.Receipt != nil {
			t.Errorf("FindRun of run %s, planted by another user: found %q, %v; want not found",
				id, got.Path, err)
		}
	}
	if _, err := Load(p); codes.CodeOf(err) != codes.E317 || !errors.Is(err, errAnotherOwner) {
		t.Errorf("Load of a receipt file another user owns: %v; want E317, owned by another", err)
	}

	// The journal directory itself, another user's: no store opens, and
	// no reader reads a journal beneath it.
	chownTree(t, filepath.Join(ours, journalDir), anotherUID)
	if _, err := OpenStore(ours); codes.CodeOf(err) != codes.E317 {
		t.Errorf("OpenStore with another user's journal directory: %v; want E317", err)
	}
	checkOwnRuns(t, ours, map[string]string{own.RunID: "/own.vel"}, 2)
}

// checkOwnRuns checks that Scan lists in dir the runs of want (run id:
// program) and no other, naming as another user's the skipped number of
// files or journal directories.
func checkOwnRuns(t *testing.T, dir string, want map[string]string, skipped int) {
	t.Helper()
	runs, passed, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range runs {
		got[r.RunID] = r.Program.Path
	}
	if len(got) != len(want) || len(runs) != len(want) {
		t.Errorf("listed %v, want %v", got, want)
	}
	for id, program := range want {
		if got[id] != program {
			t.Errorf("run %s: listed %q, want %q", id, got[id], program)
		}
	}
	if len(passed) != skipped {
		t.Errorf("skipped %v, want %d named", passed, skipped)
	}
	for _, p := range passed {
		if !strings.Contains(p.Why, "owned by uid 54321") {
			t.Errorf("skipped %s: %s; want it named as another user's", p.Path, p.Why)
		}
	}
}
