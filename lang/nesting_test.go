package lang

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// chain is `x = ` and a chain of n links of kind: the assignment and each
// link one level of the syntax tree, so that the file nests n+3 deep
// (the file, the assignment, the links, the leaf).
func chain(kind string, n int) string {
	switch kind {
	case "additions":
		return "x = 1" + strings.Repeat("+1", n) + "\n"
	case "attributes":
		return "x = True" + strings.Repeat(".a", n) + "\n"
	case "calls":
		return "x = print" + strings.Repeat("()", n) + "\n"
	case "indexes":
		return "x = True" + strings.Repeat("[0]", n) + "\n"
	}
	panic(kind)
}

// TestCompileNesting: a file whose syntax tree nests past MaxNesting (a
// chain, which the parser does not bound: it is as deep as it is long)
// is E304 at its compile, naming the bound, as the program and as a
// file it loads (E306); one at the bound compiles (the control). A
// chain of some millions, a few MiB, overflowed the worker's stack in
// the walks after the parse.
func TestCompileNesting(t *testing.T) {
	dir := testkit.Scratch(t)
	in := NewInterp(Config{Cwd: dir})
	for _, kind := range []string{"additions", "attributes", "calls", "indexes"} {
		for _, n := range []int{MaxNesting - 3, MaxNesting - 2, 200000} {
			src := chain(kind, n)
			main := filepath.Join(dir, "main.vel")
			_, err := in.CompileSource(main, []byte(src), dir, in.Predeclared())
			if n+3 <= MaxNesting {
				if err != nil {
					t.Errorf("%d %s, %d deep: %v; want it compiled", n, kind, n+3, err)
				}
				continue
			}
			var e *codes.Error
			if !errors.As(err, &e) || e.Code != codes.E304 ||
				!strings.Contains(e.Msg, "nests deeper than 10000") ||
				!strings.HasPrefix(e.Pos, main+":1:") {
				t.Errorf("%d %s, %d deep: %v; want E304 at %s:1, naming the bound", n, kind, n+3,
					err, main)
			}
			// The same file loaded by a program.
			testkit.WriteFile(t, filepath.Join(dir, "deep.vel"), src)
			_, err = in.CompileSource(main, []byte("load(\"deep.vel\", \"x\")\n"), dir,
				in.Predeclared())
			if !errors.As(err, &e) || e.Code != codes.E306 ||
				!strings.Contains(e.Msg, "nests deeper than") {
				t.Errorf("a program loading %d %s: %v; want E306 naming the bound", n, kind, err)
			}
			os.Remove(filepath.Join(dir, "deep.vel"))
		}
	}
}

// FuzzCompileSource: whatever a program's text, compiling it is a
// program or an E304 with a position in it, never a panic, and never a
// walk past MaxNesting. The program's text is the run's first untrusted
// input: a client of a door sends it whole.
func FuzzCompileSource(f *testing.F) {
	for _, path := range []string{"testdata/hello.vel", "testdata/clock.vel",
		"testdata/greet/main.vel", "../examples/hello.vel", "../examples/tool.vel"} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for _, seed := range []string{"", "x = (((1)))\n",
		"def f(x):\n    while True:\n        x += 1\n",
		"load(\"missing.vel\", \"x\")\n", "x = [y for y in range(3) if y]\n",
		"x = lambda a, *b, **c: a\n", strings.Repeat("(", 2000), "\tx = 1\n", "x = 1 +\n",
		chain("additions", 50), chain("attributes", 50), chain("calls", 50), chain("indexes", 50),
		"True = 1\nwhile True:\n    pass\n", "x = \"\\xff\"\n", "\xff\xfe"} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	in := NewInterp(Config{Cwd: dir})
	main := filepath.Join(dir, "main.vel")
	f.Fuzz(func(t *testing.T, src []byte) {
		// A chain the fuzzer would take long to grow: every input is
		// tried as it is and with a chain past the bound after it.
		for _, text := range [][]byte{src, append(src[:len(src):len(src)],
			"\n"+chain("additions", MaxNesting)...)} {
			c, err := in.CompileSource(main, text, dir, in.Predeclared())
			if err == nil {
				if c.Main != main || len(c.Order) == 0 {
					t.Fatalf("compiled %q as %+v", text, c)
				}
				continue
			}
			var e *codes.Error
			switch {
			case !errors.As(err, &e):
				t.Fatalf("%q: %v (%T), want a *codes.Error", text, err, err)
			case e.Code != codes.E304 && e.Code != codes.E306:
				t.Fatalf("%q: %v, want E304 (or E306, a load)", text, err)
			case e.Code == codes.E304 && !strings.HasPrefix(e.Pos, main+":"):
				t.Fatalf("%q: %v at %q, want a position in %s", text, err, e.Pos, main)
			}
		}
	})
}

// TestCompileNestingNamesTheFirst: a file with two chains past
// MaxNesting is refused at the first, on its first line, where the walk
// stops; the second, on the third line, is never walked. The control: the
// second alone is refused on its own line.
func TestCompileNestingNamesTheFirst(t *testing.T) {
	dir := testkit.Scratch(t)
	in := NewInterp(Config{Cwd: dir})
	main := filepath.Join(dir, "main.vel")
	deep := chain("additions", MaxNesting)
	for _, tt := range []struct{ src, line string }{
		{deep + "y = 1\n" + deep, ":1:"},
		{"y = 1\n\n" + deep, ":3:"},
	} {
		_, err := in.CompileSource(main, []byte(tt.src), dir, in.Predeclared())
		var e *codes.Error
		if !errors.As(err, &e) || e.Code != codes.E304 || !strings.HasPrefix(e.Pos, main+tt.line) {
			t.Errorf("%v; want E304 at %s%s", err, main, tt.line)
		}
	}
}

// nestingChildEnv, set, makes TestCompileNestingBeforeTheWalks the child
// it starts: the length of the chain it compiles.
const nestingChildEnv = "SABLINE_TEST_NESTING_CHAIN"

// TestCompileNestingBeforeTheWalks: the bound is checked before any walk
// that recurs once a level (markConstantLoops, the resolver, the
// compiler), so that a chain past it is refused on a stack that a chain
// at the bound fits in. The test binary compiles again, in a child whose
// stack is held to 32 MiB (debug.SetMaxStack), a chain of 400,000
// additions: E304, where a walk first overflowed the stack (a chain of 3
// million overflowed the worker's 1 GB, exit 2, E310). The control: a
// chain at the bound compiles in the same stack.
func TestCompileNestingBeforeTheWalks(t *testing.T) {
	if n := os.Getenv(nestingChildEnv); n != "" {
		debug.SetMaxStack(32 << 20)
		links, err := strconv.Atoi(n)
		if err != nil {
			t.Fatal(err)
		}
		dir := testkit.Scratch(t)
		in := NewInterp(Config{Cwd: dir})
		_, err = in.CompileSource(filepath.Join(dir, "main.vel"), []byte(chain("additions", links)),
			dir, in.Predeclared())
		fmt.Printf("compiled: %v\n", err)
		return
	}
	for _, tt := range []struct {
		links int
		want  string
	}{
		{links: 400000, want: "E304: the file nests deeper than 10000"},
		{links: MaxNesting - 3, want: "compiled: <nil>"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), testkit.Bound(2*time.Minute))
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCompileNestingBeforeTheWalks$",
			"-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", nestingChildEnv, tt.links))
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("a chain of %d compiled on a stack of 32 MiB: %v, %.600s; want %q", tt.links,
				err, out, tt.want)
		}
	}
}
