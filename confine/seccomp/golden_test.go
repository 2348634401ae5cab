package seccomp

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata. After a deliberate
// change to the rules, run
//
//	go test ./confine/seccomp -run Golden -update
//
// and read the diff.
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/dir/name.golden, or rewrites the file
// under -update. A difference is reported at its first differing line.
func golden(t *testing.T, dir, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", dir, name+".golden")
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
		t.Fatalf("%v (run go test ./confine/seccomp -run Golden -update to write it)", err)
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
			t.Fatalf("%s differs at line %d:\n got %q\nwant %q\n(run go test ./confine/seccomp -run Golden -update if the change is meant)", path, i+1, gl, wl)
		}
	}
}
