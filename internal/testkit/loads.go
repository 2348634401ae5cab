package testkit

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Loads writes, in dir, n-1 files for a program dir/main.vel to load,
// named so that the n paths (main.vel's among them) come to total bytes,
// and returns the program's text that loads each of them; a caller adds
// what it prints. A directory whose path leaves no room for such names
// skips the test, saying why.
func Loads(t *testing.T, dir string, n, total int) string {
	t.Helper()
	k := n - 1
	rest := total - len(filepath.Join(dir, "main.vel")) - k*(len(dir)+1)
	if rest/k < 9 || rest/k+1 > 255 {
		t.Skipf("the scratch directory %s cannot hold %d files of %d bytes of paths", dir, n,
			total)
	}
	var src strings.Builder
	for i := range k {
		size := rest / k
		if i < rest%k {
			size++
		}
		name := fmt.Sprintf("f%04d", i)
		name += strings.Repeat("x", size-len(name)-len(".vel")) + ".vel"
		WriteFile(t, filepath.Join(dir, name), "v = 1\n")
		fmt.Fprintf(&src, "load(%q, v%d = \"v\")\n", name, i)
	}
	return src.String()
}
