//go:build unix

package receipt

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
