//go:build unix

package ship

import (
	"context"
	"fmt"
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
// nothing more reached the bucket.
func TestShipPassesOverPipedMarks(t *testing.T) {
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
	mark := filepath.Join(jdir, doneFile)
	if err := syscall.Mkfifo(mark, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // lets go of an open that waits for a writer
		for range 50 {
			fd, err := syscall.Open(mark, syscall.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				return
			}
			syscall.Close(fd)
			time.Sleep(time.Millisecond)
		}
	})
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
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the Shipper has not shipped in 5s: it waits in the open of a named pipe")
	}
	if count, _ := shipped(t, b); count[rec.RunID] != 1 {
		t.Errorf("the ended process's run: %d records in the bucket, want one", count[rec.RunID])
	}
}
