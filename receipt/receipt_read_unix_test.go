//go:build unix

package receipt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestLoadReceiptNamedPipe checks that a named pipe with a receipt's name
// is refused without being opened: reading it would wait for a writer.
func TestLoadReceiptNamedPipe(t *testing.T) {
	p := filepath.Join(testkit.Scratch(t), "fifo.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	testkit.WantError(t, err, codes.E317, "", "not a regular file")
}

// TestScanPassesOverLinks: a link in the receipts directory is no
// receipt, wherever it leads (here, to a receipt kept elsewhere): Scan
// names it and reads nothing through it. The control is the same receipt
// as a regular file of the directory, which is read.
func TestScanPassesOverLinks(t *testing.T) {
	dir, elsewhere := testkit.Scratch(t), testkit.Scratch(t)
	rec := receipt("/p/a.vel", "1111000000000000", 0, core.Full, StatusOK)
	written, err := rec.Write(elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(written, filepath.Join(dir, "linked.json")); err != nil {
		t.Fatal(err)
	}
	runs, skipped, err := Scan(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 0 || len(skipped) != 1 || filepath.Base(skipped[0].Path) != "linked.json" ||
		!strings.HasPrefix(skipped[0].Why, "not a regular file") {
		t.Fatalf("runs %+v, skipped %+v: want the link named, not a regular file, and nothing read through it", runs, skipped)
	}
	if _, err := Load(filepath.Join(dir, "linked.json")); err == nil {
		t.Fatal("Load read a receipt through a link")
	}
	data, err := os.ReadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "regular.json"), string(data))
	if runs, _, err := Scan(dir); err != nil || len(runs) != 1 || runs[0].RunID != rec.RunID {
		t.Fatalf("the control: %+v, %v; want the regular file's receipt", runs, err)
	}
}

// unblockPipe lets go of any open of the named pipe p that waits for a
// writer (a reader the code under test left blocked), once the test ends.
func unblockPipe(t *testing.T, p string) {
	t.Cleanup(func() {
		for range 50 {
			fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return // ENXIO: no reader waits
			}
			syscall.Close(fd)
			time.Sleep(time.Millisecond)
		}
	})
}

// within runs f, and fails the test when it has not returned in 5s (on
// a loaded machine, more: testkit.Bound).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(testkit.Bound(5 * time.Second)):
		t.Fatalf("%s has not returned: it waits in the open of a named pipe", what)
	}
}

// TestLoadSwappedForAPipe: a receipt file swapped for a named pipe
// between Load's look at it and its open is refused, never opened to
// wait for a writer: receipts list and show read on. Another process
// swaps the two at the receipt's name while Load reads it again and
// again: no Load waits, and the file is read between the swaps (the
// control).
func TestLoadSwappedForAPipe(t *testing.T) {
	dir := testkit.Scratch(t)
	rec := receipt("/p/a.vel", "1111000000000000", 0, core.Full, StatusOK)
	written, err := rec.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	pipe, regular := filepath.Join(dir, ".pipe"), filepath.Join(dir, ".regular")
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				os.WriteFile(regular, data, 0o600)
				os.Rename(regular, written)
				return
			default:
			}
			if i%2 == 0 {
				syscall.Mkfifo(pipe, 0o600)
				os.Rename(pipe, written)
			} else {
				os.WriteFile(regular, data, 0o600)
				os.Rename(regular, written)
			}
		}
	}()
	unblockPipe(t, written)
	defer func() { close(stop); <-stopped }()
	loaded, refused := 0, 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		within(t, "Load of a receipt swapped for a named pipe", func() {
			if r, err := Load(written); err == nil && r.RunID == rec.RunID {
				loaded++
			} else {
				refused++
			}
		})
	}
	switch {
	case loaded == 0:
		// The control: the regular file, between swaps, is read.
		t.Errorf("loaded 0 of %d: the receipt was never read between the swaps", refused)
	case refused == 0:
		t.Skipf("skipped: in %d loads the swaps never put a pipe before Load: nothing was "+
			"checked of one", loaded)
	}
}

// TestLookupRemovedNoteIsAPipe: a named pipe in place of a journal's
// note of what its retention removed (removed.json) is passed over: a
// lookup of a run that is not there answers not found, as it would
// without the note. Before, its open waited for a writer for ever: a
// server's lookup of an unknown run id, and receipts show, hung.
func TestLookupRemovedNoteIsAPipe(t *testing.T) {
	dir := testkit.Scratch(t)
	if err := os.MkdirAll(filepath.Join(dir, journalDir), 0o700); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(dir, journalDir, retentionFile)
	if err := syscall.Mkfifo(note, 0o600); err != nil {
		t.Fatal(err)
	}
	unblockPipe(t, note)
	const id = "0123456789abcdef"
	within(t, "FindRun", func() {
		if _, err := FindRun(dir, id); !errors.Is(err, fs.ErrNotExist) || codes.CodeOf(err) != codes.E317 {
			t.Errorf("FindRun beside a piped note: %v; want E317, not found", err)
		}
	})
	within(t, "Find", func() {
		if _, err := Find(dir, id); codes.CodeOf(err) != codes.E317 {
			t.Errorf("Find beside a piped note: %v; want E317", err)
		}
	})
}

// TestRetainMarkNeverThroughALink: keeping the receipts only until
// shipped marks the journal (UntilShippedFile); a link planted under the
// mark's name, to a file outside the receipts directory, is refused
// (E317), not followed to truncate the file it leads to, which is read
// afterwards. The control: with nothing planted, the mark is made, a
// regular file.
func TestRetainMarkNeverThroughALink(t *testing.T) {
	for _, tc := range []struct {
		name    string
		planted bool
	}{
		{name: "a link planted", planted: true},
		{name: "control: nothing planted", planted: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, testkit.Scratch(t))
			outside := filepath.Join(testkit.Scratch(t), "outside")
			const was = "not the journal's\n"
			testkit.WriteFile(t, outside, was)
			mark := filepath.Join(s.Journal().Dir(), UntilShippedFile)
			if tc.planted {
				if err := os.Symlink(outside, mark); err != nil {
					t.Fatal(err)
				}
			}
			err := s.Retain(Retention{}, true)
			if tc.planted {
				if codes.CodeOf(err) != codes.E317 {
					t.Errorf("Retain with a link at its mark: %v; want E317", err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if fi, err := os.Lstat(mark); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("the mark: %v (%v); want a regular file", fi, err)
			}
			if got, err := os.ReadFile(outside); err != nil || string(got) != was {
				t.Errorf("the file outside holds %q (%v), want it unchanged", got, err)
			}
		})
	}
}
