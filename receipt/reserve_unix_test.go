//go:build unix

package receipt

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
)

// TestOverwriteReservedFails: a receipt that cannot be written over its
// reservation (here the reservation's name is a named pipe, which takes
// no write at an offset) is the write's error, which Finish wraps in
// E327: never success, nor the error of a step after it.
func TestOverwriteReservedFails(t *testing.T) {
	p := filepath.Join(testkit.Scratch(t), "r.json")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader, so that opening the pipe to write does not wait for one.
	r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := New("/p.vel", budget.Budget{}, nil)
	rec.path, rec.reserved = p, ReserveBytes
	rec.Outcome = OutcomeOf(nil)
	err = overwriteReserved(rec)
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "write" || !errors.Is(err, syscall.ESPIPE) {
		t.Fatalf("overwriteReserved: %v, want the write's error, %v", err, syscall.ESPIPE)
	}
}

// TestOverwriteReservedFollowsNoLink: a link planted at a reserved
// receipt's name is not followed to write the receipt over its target
// (read from outside: unchanged), and a named pipe there with no reader
// is not waited on; each is an error, which Finish wraps in E327. The
// control: the same receipt written over a regular file of its own.
func TestOverwriteReservedFollowsNoLink(t *testing.T) {
	dir := testkit.Scratch(t)
	target := filepath.Join(dir, "target")
	const kept = "KEPT\n"
	if err := os.WriteFile(target, []byte(kept), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := New("/p.vel", budget.Budget{}, nil)
	rec.reserved = ReserveBytes
	rec.Outcome = OutcomeOf(nil)

	rec.path = filepath.Join(dir, "own.json")
	if err := os.WriteFile(rec.path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := overwriteReserved(rec); err != nil {
		t.Fatalf("the control, a regular file: %v", err)
	}

	rec.path = filepath.Join(dir, "link.json")
	if err := os.Symlink(target, rec.path); err != nil {
		t.Fatal(err)
	}
	err := overwriteReserved(rec)
	if got, rerr := os.ReadFile(target); rerr != nil || string(got) != kept {
		t.Fatalf("the link's target holds %d bytes (%v), want %q: written through the link",
			len(got), rerr, kept)
	}
	if err == nil {
		t.Errorf("overwriteReserved through a link: nil, want an error")
	}

	rec.path = filepath.Join(dir, "fifo.json")
	if err := testkit.FIFONotWaitedOn(t, rec.path, func() error { return overwriteReserved(rec) }); err == nil {
		t.Errorf("overwriteReserved of a named pipe with no reader: nil, want an error")
	}
}
