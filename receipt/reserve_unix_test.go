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
