//go:build unix

package ship

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/journal"
)

// TestShipPassesOverPipedMarks: the journal of a process that ended,
// whose mark of how far it was shipped (ship.done) is a named pipe, is
// shipped all the same, and the Shipper's rounds go on: the mark is not
// one, as a file that holds no number is not. Before, the mark's open
// waited for a writer for ever, and with it every round of the Shipper:
// nothing more reached the bucket. Its id (ship.id) a named pipe, it is
// not shipped, and the Shipper says why, without waiting either. The
// mark's temporary file a link planted to a file outside, the link is
// not followed (the file is unchanged) and the mark is written all the
// same. The control: nothing planted, shipped and marked.
func TestShipPassesOverPipedMarks(t *testing.T) {
	pipe := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { // lets go of an open that waits for a writer
			for range 50 {
				fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
				if err != nil {
					return
				}
				syscall.Close(fd)
				time.Sleep(time.Millisecond)
			}
		})
	}
	const was = "not the journal's\n"
	outside := filepath.Join(t.TempDir(), "outside")
	tests := []struct {
		name      string
		plant     func(t *testing.T, jdir string)
		wantShip  bool // the run is in the bucket, the journal marked, and Close says nothing
		wantError bool // Close says why it was not shipped
	}{
		{name: "ship.done a named pipe", wantShip: true,
			plant: func(t *testing.T, jdir string) { pipe(t, filepath.Join(jdir, doneFile)) }},
		{name: "ship.id a named pipe", wantError: true,
			plant: func(t *testing.T, jdir string) { pipe(t, filepath.Join(jdir, idFile)) }},
		{name: "ship.done.tmp a link to a file outside", wantShip: true,
			plant: func(t *testing.T, jdir string) {
				if err := os.WriteFile(outside, []byte(was), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(outside, filepath.Join(jdir, doneFile+".tmp")); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "control: nothing planted", wantShip: true, plant: func(*testing.T, string) {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			jdir := filepath.Join(dir, "journal", "proc-0123456789abcdef")
			dead, err := journal.Open(jdir, journal.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rec := newRun("acme")
			data := fmt.Sprintf(`{"schema":%q,"run_id":%q,"tenant":"acme","outcome":{"status":"ok"}}`,
				receipt.Schema, rec.RunID)
			if err := dead.Append(rec.Key(), []byte(data)); err != nil {
				t.Fatal(err)
			}
			dead.Close()
			tc.plant(t, jdir)
			store, err := receipt.OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			b := bucket.NewMemory()
			done := make(chan error, 1)
			go func() {
				sh, err := Start(store, b, Options{Replica: "r1", Every: time.Hour})
				if err == nil {
					err = sh.Close(context.Background())
				}
				done <- err
			}()
			select {
			case err := <-done:
				if (err != nil) != tc.wantError {
					t.Fatalf("the Shipper: %v; want an error %v", err, tc.wantError)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the Shipper has not shipped in 5s: it waits in the open of a named pipe")
			}
			count, _ := shipped(t, b)
			if got := count[rec.RunID] == 1; got != tc.wantShip {
				t.Errorf("the ended process's run: %d records in the bucket, want it shipped once %v",
					count[rec.RunID], tc.wantShip)
			}
			if n, ok := readDone(jdir); tc.wantShip && (!ok || n != 1) {
				t.Errorf("the journal's mark: %d, %v; want it shipped to segment 1", n, ok)
			}
			if got, err := os.ReadFile(outside); err == nil && string(got) != was {
				t.Errorf("the file outside holds %q, want it unchanged", got)
			}
		})
	}
}

// TestSealRequestNeverThroughALink: a live process's journal (its lock
// held, its newest segment holding a record) is asked to seal by a
// request file (receipt.SealRequestFile) the Shipper makes there; a link
// planted under the request's name, to a file outside, is not followed to
// truncate that file, which is read afterwards. The control: with nothing
// planted, the request is made, a regular file.
func TestSealRequestNeverThroughALink(t *testing.T) {
	for _, tc := range []struct {
		name    string
		planted bool
	}{
		{name: "a link planted at the request", planted: true},
		{name: "control: nothing planted", planted: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			jdir := filepath.Join(dir, "journal", "proc-0123456789abcdef")
			live, err := journal.Open(jdir, journal.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer live.Close()
			owner, err := journal.TryLock(jdir) // its owner lives
			if err != nil {
				t.Fatal(err)
			}
			defer owner.Unlock()
			rec := newRun("acme")
			data := fmt.Sprintf(`{"schema":%q,"run_id":%q,"tenant":"acme","outcome":{"status":"ok"}}`,
				receipt.Schema, rec.RunID)
			if err := live.Append(rec.Key(), []byte(data)); err != nil {
				t.Fatal(err)
			}
			const was = "not the journal's\n"
			outside := filepath.Join(t.TempDir(), "outside")
			if err := os.WriteFile(outside, []byte(was), 0o600); err != nil {
				t.Fatal(err)
			}
			request := filepath.Join(jdir, receipt.SealRequestFile)
			if tc.planted {
				if err := os.Symlink(outside, request); err != nil {
					t.Fatal(err)
				}
			}
			store, err := receipt.OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			start(t, store, bucket.NewMemory(), "r1") // its first round asks the live journal to seal
			if got, err := os.ReadFile(outside); err != nil || string(got) != was {
				t.Errorf("the file outside holds %q (%v), want it unchanged", got, err)
			}
			if fi, err := os.Lstat(request); !tc.planted && (err != nil || !fi.Mode().IsRegular()) {
				t.Errorf("the seal request: %v (%v); want a regular file", fi, err)
			}
		})
	}
}
