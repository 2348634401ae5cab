package lang

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
)

// TestPredeclaredFor compiles programs with PredeclaredNames and runs them
// with PredeclaredFor, as a job does: a run is given the names its files
// use, a load's among them, and they are enough. The control runs each
// program that uses a name with nothing predeclared: it fails, so a name
// the compile did not record would show.
func TestPredeclaredFor(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		wantNames []string
		wantOut   string
	}{
		{name: "print alone", files: map[string]string{"main.vel": "print('hi')\n"},
			wantNames: []string{"print"}, wantOut: "hi\n"},
		{name: "nothing", files: map[string]string{"main.vel": "x = 1\n"}},
		{name: "a global of the program's own is not the module",
			files:     map[string]string{"main.vel": "fs = 2\nio.print(str(fs))\n"},
			wantNames: []string{"io"}, wantOut: "2\n"},
		{name: "a load's names",
			files: map[string]string{
				"main.vel": "load('lib.vel', 'now')\nprint(now() > 0)\n",
				"lib.vel":  "def now():\n    return clock.now()\n",
			},
			wantNames: []string{"clock", "print"}, wantOut: "True\n"},
		{name: "a constant loop and the arguments",
			files:     map[string]string{"main.vel": "while True:\n    break\nprint(ARGS)\n"},
			wantNames: []string{"ARGS", loopTrue, "print"}, wantOut: "[\"a\"]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testkit.Scratch(t)
			for name, src := range tt.files {
				testkit.WriteFile(t, filepath.Join(root, name), src)
			}
			newInterp := func(out *bytes.Buffer) *Interp {
				return NewInterp(Config{Budget: budget.MustParse(root, "io,clock"), Cwd: root,
					Args: []string{"a"}, Stdin: strings.NewReader(""), Stdout: out})
			}
			var out bytes.Buffer
			in := newInterp(&out)
			c, err := in.Compile(filepath.Join(root, "main.vel"), PredeclaredNames())
			if err != nil {
				t.Fatal(err)
			}
			pre := in.PredeclaredFor(c)
			if got := slices.Sorted(maps.Keys(pre)); !slices.Equal(got, tt.wantNames) {
				t.Errorf("PredeclaredFor = %q, want %q", got, tt.wantNames)
			}
			if err := in.Exec(c, pre); err != nil {
				t.Fatalf("run: %v", err)
			}
			if out.String() != tt.wantOut {
				t.Errorf("output %q, want %q", out.String(), tt.wantOut)
			}
			if len(tt.wantNames) == 0 {
				return
			}
			// The control: the same program given none of its names.
			in = newInterp(&bytes.Buffer{})
			c, err = in.Compile(filepath.Join(root, "main.vel"), PredeclaredNames())
			if err != nil {
				t.Fatal(err)
			}
			if err := in.Exec(c, starlark.StringDict{}); err == nil {
				t.Error("the program ran with nothing predeclared")
			}
		})
	}
}

// TestPredeclaredNames: the names a program compiles against, and so
// may use, are these and no others.
func TestPredeclaredNames(t *testing.T) {
	want := []string{"ARGS", loopTrue, "clock", "declassify", "enumerate", "env", "ffi", "fs",
		"io", "net", "print", "rand", "range", "struct", "tool"}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(PredeclaredNames())); !slices.Equal(got, want) {
		t.Errorf("PredeclaredNames %q, want %q", got, want)
	}
	dir := t.TempDir()
	in := NewInterp(Config{Budget: budget.MustParse(dir, "io"), Cwd: dir,
		Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}})
	if got := slices.Sorted(maps.Keys(in.Predeclared())); !slices.Equal(got, want) {
		t.Errorf("Predeclared %q, want %q", got, want)
	}
	// A Compiled that Compile did not make recorded nothing: it is given
	// every name.
	if got := slices.Sorted(maps.Keys(in.PredeclaredFor(&Compiled{}))); !slices.Equal(got, want) {
		t.Errorf("PredeclaredFor(&Compiled{}) %q, want %q", got, want)
	}
}

// TestConstantLoopsKeepTheirTruth: a `while True:` loop runs as written
// whatever the file binds, the name its condition is marked with among
// them; the control binds nothing.
func TestConstantLoopsKeepTheirTruth(t *testing.T) {
	const loop = "n = 0\nwhile True:\n    n += 1\n    if n == 3:\n        break\nprint(n)\n"
	for _, tt := range []struct{ name, src string }{
		{name: "control", src: loop},
		{name: "the mark's name bound", src: loopTrue + " = False\n" + loop},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := runSrc(t, Config{Budget: budget.MustParse(dir, "io"), Cwd: dir}, tt.src)
			if r.err != nil || r.stdout != "3\n" {
				t.Errorf("printed %q, %v; want 3", r.stdout, r.err)
			}
		})
	}
}
