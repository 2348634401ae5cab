//go:build unix

package receipt

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
)

// TestStoreJournalLink: a receipts directory whose journal directory is a
// symbolic link (planted, or made to move the journal) opens no store
// (E317), and nothing is made where the link points: readers never
// follow it (JournalDirs), so receipts kept through it would be read by
// no one, outside the guarded directory. The control: a journal
// directory made beforehand, a directory of its own, opens, and the
// receipt kept there is listed and found.
func TestStoreJournalLink(t *testing.T) {
	elsewhere := t.TempDir()
	linked := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(linked, journalDir)); err != nil {
		t.Fatal(err)
	}
	if s, err := OpenStore(linked); codes.CodeOf(err) != codes.E317 {
		t.Errorf("OpenStore with the journal a link: %v, %v; want E317", s, err)
	}
	if made, _ := os.ReadDir(elsewhere); len(made) != 0 {
		t.Errorf("made %v where the link points", made)
	}

	own := t.TempDir()
	if err := os.Mkdir(filepath.Join(own, journalDir), 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(own)
	if err != nil {
		t.Fatal(err)
	}
	rec := receiptAt(t, "/p.vel", core.Full, time.Now().UTC())
	s.Finish(rec)
	if _, err := rec.Stored(); err != nil {
		t.Fatal(err)
	}
	if runs, err := List(own); err != nil || len(runs) != 1 || runs[0].RunID != rec.RunID {
		t.Errorf("listed %d runs (%v), want the one kept", len(runs), err)
	}
	if got, err := FindRun(own, rec.RunID); err != nil || got.RunID != rec.RunID {
		t.Errorf("FindRun: %v, want the run kept", err)
	}
}
