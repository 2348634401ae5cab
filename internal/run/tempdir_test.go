package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunsDirMadeBeneathItsBaseOnly: a runs directory is made with the
// directories above it only up to its place's base, which must be there:
// a TMPDIR or a cache directory that names a place that is not is passed
// over, and nothing is made there; the next place is taken. The control:
// a base that is there has the runs directory made beneath it, with the
// directories between.
func TestRunsDirMadeBeneathItsBaseOnly(t *testing.T) {
	root := t.TempDir()
	gone := filepath.Join(root, "gone")
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	there := filepath.Join(root, "there")
	if err := os.Mkdir(there, 0o700); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(there, "cache", "sabline", "runs")
	got, err := firstRunsDir([]runsPlace{
		{gone, filepath.Join(gone, "sabline-runs-0")},
		{file, filepath.Join(file, "sabline-runs-0")},
		{there, want},
	})
	if err != nil || got != want {
		t.Fatalf("firstRunsDir: %q, %v; want %q", got, err, want)
	}
	if fi, err := os.Stat(want); err != nil || !fi.IsDir() {
		t.Errorf("%s: %v, want a directory", want, err)
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it never made", gone, err)
	}

	_, err = firstRunsDir([]runsPlace{{gone, filepath.Join(gone, "sabline-runs-0")}})
	if err == nil || !strings.Contains(err.Error(), gone+" is not a directory") {
		t.Errorf("firstRunsDir with no base there: %v, want a refusal naming %s", err, gone)
	}
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it never made", gone, err)
	}
}
