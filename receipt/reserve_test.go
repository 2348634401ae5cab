package receipt

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestReceiptFinishedInReservedSpace: a program that fills the file system
// its receipts live on still has a finished receipt; a receipt that cannot
// be finished at all stays, saying so (E327).
func TestReceiptFinishedInReservedSpace(t *testing.T) {
	mnt := testkit.MountSmallFS(t)
	rec := New("/p.vel", budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	if _, err := rec.Reserve(mnt); err != nil {
		t.Fatal(err)
	}
	fill := filepath.Join(mnt, "fill")
	f, err := os.Create(fill)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			break // ENOSPC: the file system is full
		}
	}
	f.Close()
	if probe, err := os.CreateTemp(mnt, "probe-"); err == nil {
		_, werr := probe.Write(bytes.Repeat([]byte("p"), 4096))
		probe.Close()
		os.Remove(probe.Name())
		if werr == nil {
			t.Fatal("the file system still takes 4 KiB: the test did not fill it")
		}
	}
	rec.Outcome = OutcomeOf(codes.Errorf(codes.E314, "full"))
	rec.Finish()
	if _, err := rec.Stored(); err != nil {
		t.Fatalf("Stored: %v, want the receipt finished in its reserved space", err)
	}
	got, err := Load(rec.path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome.Code != codes.E314 {
		t.Fatalf("stored outcome %+v, want E314", got.Outcome)
	}

	// The same receipt, unreserved (removed), on a file system that is still
	// full: it cannot be finished, and says so.
	rec2 := New("/p.vel", budget.Budget{}, nil)
	rec2.Timings.Started = time.Now().UTC()
	rec2.path = filepath.Join(mnt, "gone", rec2.fileName())
	rec2.Outcome = OutcomeOf(nil)
	rec2.Finish()
	if _, err := rec2.Stored(); codes.CodeOf(err) != codes.E327 {
		t.Fatalf("Stored: %v, want E327", err)
	}
	if info, _ := codes.Info(codes.E327); info.Exit == codes.ExitUsage {
		t.Fatal("E327 exits as a usage error: it would claim that nothing ran")
	}
}

// TestSkeletonSaysUnfinished: the reserved receipt, before the run ends,
// says the run started and was not finished, and is ReserveBytes bytes.
func TestSkeletonSaysUnfinished(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "receipts")
	rec := New("/p.vel", budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	made, err := rec.Reserve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Dir(filepath.Dir(filepath.Dir(dir))); len(made) != 1 || made[0] != filepath.Join(want, "a") {
		t.Fatalf("made %q, want the topmost directory made, %s", made, filepath.Join(want, "a"))
	}
	fi, err := os.Stat(rec.path)
	if err != nil || fi.Size() != ReserveBytes {
		t.Fatalf("reserved receipt: %v, size %d, want %d", err, fi.Size(), ReserveBytes)
	}
	got, err := Load(rec.path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome.Status != StatusUnfinished || got.Outcome.Code != codes.E327 {
		t.Fatalf("skeleton outcome %+v, want unfinished E327", got.Outcome)
	}
}

// TestReserveLongArguments: a receipt larger than ReserveBytes (long
// program arguments) still has its space reserved, twice its skeleton.
func TestReserveLongArguments(t *testing.T) {
	rec := New("/p.vel", budget.Budget{}, []string{strings.Repeat("a", 100<<10)})
	rec.Timings.Started = time.Now().UTC()
	if _, err := rec.Reserve(t.TempDir()); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	fi, err := os.Stat(rec.path)
	if err != nil || fi.Size() <= 200<<10 {
		t.Fatalf("reserved %d bytes (%v), want twice the skeleton, more than 200 KiB", fi.Size(), err)
	}
	rec.Outcome = OutcomeOf(nil)
	if err := overwriteReserved(rec); err != nil {
		t.Fatalf("finish in the reserved space: %v", err)
	}
	if got, err := Load(rec.path); err != nil || got.Outcome.Status != StatusOK {
		t.Fatalf("finished receipt: %v, %+v", err, got)
	}
}
