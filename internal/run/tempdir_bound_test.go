package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/wire"
)

// TestTempDirEntriesBound: a run's private temporary directory holds
// MaxTempDirEntries entries made in it beside the worker's crash file
// (the control: within the bound), and one more is E330. Before, the
// directory itself and the crash file were counted too: a program that
// made 9,999 files there was stopped, E330 "more than 10000 entries
// were made", where docs/errors.md says the bound is 10,000 entries.
// Only the crash file itself is not counted: a file of its name that
// the program made beneath the directory is one of its entries.
func TestTempDirEntriesBound(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, wire.CrashFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range MaxTempDirEntries - 2 {
		if err := os.WriteFile(filepath.Join(dir, "d", fmt.Sprint(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "d", wire.CrashFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := tempDirWithin(dir, os.Getpid()); err != nil {
		t.Fatalf("%d entries made beside the crash file: %v; want it within the bound",
			MaxTempDirEntries, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "one-more"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := tempDirWithin(dir, os.Getpid())
	if codes.CodeOf(err) != codes.E330 ||
		!strings.Contains(err.Error(), fmt.Sprintf("more than %d entries", MaxTempDirEntries)) {
		t.Fatalf("%d entries made beside the crash file: %v; want E330 naming the bound",
			MaxTempDirEntries+1, err)
	}
}
