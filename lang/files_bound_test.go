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

// TestCompileFilesBound: a program and the files it loads are at most
// program.MaxFiles files, their paths program.MaxPathBytes in all. At
// both bounds the program compiles (the control); a file more, or a
// byte more of their paths, is E306 at the load past the bound, naming
// it. Before, nothing bounded them here: a program of 4,097 files ran,
// and its worker's record, which names each, was refused after the run
// (E310, a crash). A file loaded twice is one file, its path counted
// once: at both bounds with a load repeated, the program compiles.
func TestCompileFilesBound(t *testing.T) {
	in := NewInterp(Config{})
	for _, tt := range []struct {
		name         string
		files, bytes int
		ok           bool
		again        bool // the first load made twice
	}{
		{"at both bounds", program.MaxFiles, program.MaxPathBytes, true, false},
		{"at both bounds, a file loaded twice", program.MaxFiles, program.MaxPathBytes, true,
			true},
		{"a file more", program.MaxFiles + 1, program.MaxPathBytes, false, false},
		{"a byte more", program.MaxFiles, program.MaxPathBytes + 1, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			src := testkit.Loads(t, dir, tt.files, tt.bytes) + "print(\"loaded\")\n"
			if tt.again {
				first, _, _ := strings.Cut(src, "\n")
				src = strings.Replace(first, "v0 =", "again =", 1) + "\n" + src
			}
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
