package lang

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/program"
)

// filesOf writes, in dir, n-1 files for a program dir/main.vel to load,
// named so that the n paths come to total bytes, and returns the
// program's text: it loads each of them.
func filesOf(t *testing.T, dir string, n, total int) string {
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
		testkit.WriteFile(t, filepath.Join(dir, name), "v = 1\n")
		fmt.Fprintf(&src, "load(%q, v%d = \"v\")\n", name, i)
	}
	return src.String() + "print(\"loaded\")\n"
}

// TestCompileFilesBound: a program and the files it loads are at most
// program.MaxFiles files, their paths program.MaxPathBytes in all. At
// both bounds the program compiles (the control); a file more, or a
// byte more of their paths, is E306 at the load past the bound, naming
// it. Before, nothing bounded them here: a program of 4,097 files ran,
// and its worker's record, which names each, was refused after the run
// (E310, a crash).
func TestCompileFilesBound(t *testing.T) {
	in := NewInterp(Config{})
	for _, tt := range []struct {
		name         string
		files, bytes int
		ok           bool
	}{
		{"at both bounds", program.MaxFiles, program.MaxPathBytes, true},
		{"a file more", program.MaxFiles + 1, program.MaxPathBytes, false},
		{"a byte more", program.MaxFiles, program.MaxPathBytes + 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			src := filesOf(t, dir, tt.files, tt.bytes)
			main := filepath.Join(dir, "main.vel")
			c, err := in.CompileSource(main, []byte(src), dir, in.Predeclared())
			if tt.ok {
				if err != nil || len(c.Order) != tt.files {
					t.Fatalf("%d files of %d bytes of paths: %v; want them compiled", tt.files,
						tt.bytes, err)
				}
				return
			}
			var e *codes.Error
			if !errors.As(err, &e) || e.Code != codes.E306 ||
				!strings.Contains(e.Msg, fmt.Sprintf("at most %d files", program.MaxFiles)) ||
				!strings.HasPrefix(e.Pos, main+":") {
				t.Fatalf("%d files of %d bytes of paths: %v; want E306 at a load of %s, naming "+
					"the bound", tt.files, tt.bytes, err, main)
			}
		})
	}
}
