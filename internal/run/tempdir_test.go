package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestClearTemp: between two pooled runs the worker's temporary directory
// is emptied, the crash file too: what one run wrote there (the crash
// file was left as it was, and one client read what another wrote in it),
// the next never sees. The crash file stays the worker's standard error,
// open to append, so what is written next starts at its beginning.
func TestClearTemp(t *testing.T) {
	dir := testkit.Scratch(t)
	crash, err := os.OpenFile(filepath.Join(dir, crashFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer crash.Close()
	if _, err := crash.WriteString("the first run's secret\n"); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "left", "by", "it.txt"), "x")
	testkit.WriteFile(t, filepath.Join(dir, "also.txt"), "x")
	clearTemp(dir, crash)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != crashFile {
		t.Fatalf("left %v, want the crash file alone", entries)
	}
	if _, err := crash.WriteString("next\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, crashFile)); err != nil || string(got) != "next\n" {
		t.Fatalf("the crash file holds %q (%v), want only what was written after it was emptied", got, err)
	}
}
