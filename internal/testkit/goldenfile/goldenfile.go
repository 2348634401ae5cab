// Package goldenfile compares a test's output with a committed file under
// testdata, for the packages whose plans and programs are held to one, and
// rewrites the file when the test runs with -update. It is test scaffolding:
// only tests import it.
package goldenfile

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files. After a deliberate change, run the
// package's tests with -update (go test ./confine -run Golden -update) and
// read the diff.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Check compares got with the file at path, or rewrites the file under
// -update. A difference is reported at its first differing line.
func Check(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if string(got) == string(want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s differs at line %d:\n got %q\nwant %q\n"+
				"(run the test with -update if the change is meant)", path, i+1, gl, wl)
		}
	}
}
