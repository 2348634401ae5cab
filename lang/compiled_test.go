package lang

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"go.starlark.net/starlark"
)

// TestCompiledFileKept compiles a program, changes one thing, and compiles
// it again: a file is taken from the cache (the same *starlark.Program)
// only when its name, its bytes and the answers about the names asked are
// the same, and a run of what was compiled says which code ran.
func TestCompiledFileKept(t *testing.T) {
	loadsLib := map[string]string{ // a program and the file it loads
		"main.vel": "load('lib.vel', 'word')\nprint(word)\n",
		"lib.vel":  "word = 'one'\n",
	}
	tests := []struct {
		name   string
		files  map[string]string // main.vel and what it loads
		extra  []string          // names predeclared beside the language's at the first compile
		change func(t *testing.T, root string)
		extra2 []string // ... and at the second
		// wantSame are the files (relative to the root) whose code the
		// second compile took from the first; the others were compiled
		// again.
		wantSame []string
		wantCode codes.Code // of the second compile; "" for none
		wantPos  string     // ... its position, $ROOT the program's directory
		wantMsg  string     // ... and what its message holds
		wantOut  string     // of a run of the second compile
	}{
		{
			name:     "nothing changed",
			files:    map[string]string{"main.vel": "print('one')\n"},
			wantSame: []string{"main.vel"},
			wantOut:  "one\n",
		},
		{
			name:  "the bytes changed",
			files: map[string]string{"main.vel": "print('one')\n"},
			change: func(t *testing.T, root string) {
				testkit.WriteFile(t, filepath.Join(root, "main.vel"), "print('two')\n")
			},
			wantOut: "two\n",
		},
		{
			name:     "a name the file does not use is predeclared now",
			files:    map[string]string{"main.vel": "print('one')\n"},
			extra2:   []string{"extra"},
			wantSame: []string{"main.vel"},
			wantOut:  "one\n",
		},
		{
			name:     "a name the file uses is predeclared no longer",
			files:    map[string]string{"main.vel": "print(extra)\n"},
			extra:    []string{"extra"},
			wantCode: codes.E304,
			wantPos:  "$ROOT/main.vel:1:7",
			wantMsg:  "undefined: extra",
		},
		{
			name: "a name the file binds itself is predeclared now",
			files: map[string]string{
				"main.vel": "def f():\n    return extra\nextra = 'own'\nprint(f())\n"},
			extra2:  []string{"extra"},
			wantOut: "own\n",
			// the resolver never asks of a name the file binds: kept
			wantSame: []string{"main.vel"},
		},
		{
			// the resolver found len universal: asked, and answered no
			name:    "a universal name the file uses is predeclared now",
			files:   map[string]string{"main.vel": "print(len('ab'))\n"},
			extra2:  []string{"len"},
			wantOut: "predeclared len\n",
		},
		{
			name: "the second of two loads is gone",
			files: map[string]string{
				"main.vel": "load('a.vel', 'x')\nload('b.vel', 'y')\nprint(x, y)\n",
				"a.vel":    "x = 1\n",
				"b.vel":    "y = 2\n",
			},
			change: func(t *testing.T, root string) {
				if err := os.Remove(filepath.Join(root, "b.vel")); err != nil {
					t.Fatal(err)
				}
			},
			wantCode: codes.E306,
			wantPos:  "$ROOT/main.vel:2:1",
			wantMsg:  "$ROOT/main.vel loads $ROOT/b.vel",
		},
		{
			name:  "a load changed",
			files: loadsLib,
			change: func(t *testing.T, root string) {
				testkit.WriteFile(t, filepath.Join(root, "lib.vel"), "word = 'two'\n")
			},
			wantSame: []string{"main.vel"},
			wantOut:  "two\n",
		},
		{
			name:  "a load made a cycle",
			files: loadsLib,
			change: func(t *testing.T, root string) {
				testkit.WriteFile(t, filepath.Join(root, "lib.vel"),
					"load('main.vel', 'x')\nword = 'two'\n")
			},
			wantCode: codes.E306,
			wantPos:  "$ROOT/lib.vel:1:1",
			wantMsg:  "load cycle: $ROOT/main.vel -> $ROOT/lib.vel -> $ROOT/main.vel",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testkit.Scratch(t)
			for name, src := range tt.files {
				testkit.WriteFile(t, filepath.Join(root, name), src)
			}
			var out bytes.Buffer
			in := NewInterp(Config{Budget: budget.MustParse(root, "io"), Cwd: root,
				Stdin: strings.NewReader(""), Stdout: &out, KeepCompiled: true})
			names := func(extra []string) starlark.StringDict {
				d := in.Predeclared()
				for _, name := range extra {
					d[name] = starlark.NewBuiltin(name, func(*starlark.Thread, *starlark.Builtin,
						starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
						return starlark.String("predeclared " + name), nil
					})
				}
				return d
			}
			main := filepath.Join(root, "main.vel")
			first, err := in.Compile(main, names(tt.extra))
			if err != nil {
				t.Fatalf("first compile: %v", err)
			}
			if tt.change != nil {
				tt.change(t, root)
			}
			pre := names(tt.extra2)
			second, err := in.Compile(main, pre)
			if tt.wantCode != "" {
				fill := strings.NewReplacer("$ROOT", root).Replace
				testkit.WantError(t, err, tt.wantCode, fill(tt.wantPos), fill(tt.wantMsg))
				return
			}
			if err != nil {
				t.Fatalf("second compile: %v", err)
			}
			wantDigests(t, second)
			for name, prog := range second.Files {
				rel, _ := filepath.Rel(root, name)
				same := first.Files[name] == prog
				if want := slices.Contains(tt.wantSame, rel); same != want {
					t.Errorf("%s: the first compile's code taken again: %v, want %v", rel, same, want)
				}
			}
			// The names the run looks up are a fresh compile's.
			fresh, err := NewInterp(Config{Budget: budget.MustParse(root, "io"), Cwd: root}).
				Compile(main, pre)
			if err != nil {
				t.Fatalf("a fresh compile: %v", err)
			}
			if !maps.Equal(second.uses, fresh.uses) {
				t.Errorf("names used %v, a fresh compile's %v", second.uses, fresh.uses)
			}
			if err := in.Exec(second, pre); err != nil {
				t.Fatalf("run: %v", err)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantOut)
			}
		})
	}
}

// forgetCompiled empties the process's cache of compiled files.
func forgetCompiled() {
	c := &compiledFiles
	c.Lock()
	defer c.Unlock()
	clear(c.byName)
	c.order, c.bytes = nil, 0
}

// keptFiles returns the names the cache keeps, compiled longest ago
// first, and the bytes of their sources, and fails t when its order, its
// map and its count of bytes disagree.
func keptFiles(t *testing.T) (names []string, bytes int) {
	t.Helper()
	c := &compiledFiles
	c.Lock()
	defer c.Unlock()
	for _, name := range c.order {
		if cf := c.byName[name]; cf != nil {
			bytes += len(cf.src)
		}
	}
	if len(c.order) != len(c.byName) || bytes != c.bytes {
		t.Fatalf("the cache's order names %d files of %d bytes, its map %d, its count %d bytes",
			len(c.order), bytes, len(c.byName), c.bytes)
	}
	return slices.Clone(c.order), bytes
}

// compileFiles compiles the files named PREFIXi.vel in root for i from
// first to n-1, each of size bytes (src(i) filled out to size), with
// KeepCompiled keep, and returns their names.
func compileFiles(t *testing.T, root, prefix string, first, n, size int, keep bool,
	src func(i int) string) []string {
	t.Helper()
	in := NewInterp(Config{Budget: budget.MustParse(root, "io"), Cwd: root,
		Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, KeepCompiled: keep})
	var names []string
	for i := first; i < n; i++ {
		name := filepath.Join(root, fmt.Sprintf("%s%d.vel", prefix, i))
		text := src(i)
		text += "#" + strings.Repeat("-", size-len(text)-2) + "\n"
		if _, err := in.CompileSource(name, []byte(text), root, in.Predeclared()); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// assignment is a file's text that binds x to i.
func assignment(i int) string { return fmt.Sprintf("x = %d\n", i) }

// TestCompiledFilesBounds fills the cache past each of its bounds and
// reads what it kept: at most maxCompiledFiles files and maxCompiledBytes
// of source, the ones compiled last, and no file larger than
// maxCompiledFileBytes; a run without KeepCompiled keeps nothing.
func TestCompiledFilesBounds(t *testing.T) {
	forgetCompiled()
	root := testkit.Scratch(t)

	// Without KeepCompiled, nothing.
	compileFiles(t, root, "unkept", 0, 3, 100, false, assignment)
	if names, _ := keptFiles(t); len(names) != 0 {
		t.Errorf("runs without KeepCompiled left %q", names)
	}

	// Small files: the count bounds them.
	small := compileFiles(t, root, "small", 0, maxCompiledFiles+5, 100, true, assignment)
	names, _ := keptFiles(t)
	if want := small[5:]; !slices.Equal(names, want) {
		t.Errorf("kept %d files %q, want the last %d compiled", len(names), names, len(want))
	}
	// One of them compiled again, from more bytes: it replaces the one
	// kept, and is the last compiled.
	again := compileFiles(t, root, "small", 10, 11, 300, true, assignment)[0]
	names, n := keptFiles(t)
	if len(names) != maxCompiledFiles || names[len(names)-1] != again {
		t.Errorf("kept %d files, the last compiled %s, want %d and %s",
			len(names), names[len(names)-1], maxCompiledFiles, again)
	}
	if want := (maxCompiledFiles-1)*100 + 300; n != want {
		t.Errorf("kept %d bytes, want %d", n, want)
	}

	// Files of the largest size kept: the bytes bound them.
	large := compileFiles(t, root, "large", 0, maxCompiledBytes/maxCompiledFileBytes+3,
		maxCompiledFileBytes, true, assignment)
	names, n = keptFiles(t)
	if n > maxCompiledBytes || len(names) != maxCompiledBytes/maxCompiledFileBytes {
		t.Errorf("kept %d files of %d bytes, want %d (at most %d bytes)",
			len(names), n, maxCompiledBytes/maxCompiledFileBytes, maxCompiledBytes)
	}
	if want := large[len(large)-len(names):]; !slices.Equal(names, want) {
		t.Errorf("kept %q, want the last compiled", names)
	}

	// A file past the size of one is compiled and not kept.
	over := compileFiles(t, root, "over", 0, 1, maxCompiledFileBytes+1, true, assignment)
	if names, _ := keptFiles(t); slices.Contains(names, over[0]) {
		t.Errorf("a file of %d bytes was kept", maxCompiledFileBytes+1)
	}
	// One under a kept file's name puts that file out.
	last := len(large) - 1
	compileFiles(t, root, "large", last, last+1, maxCompiledFileBytes+1, true, assignment)
	if names, _ := keptFiles(t); slices.Contains(names, large[last]) {
		t.Errorf("%s compiled again from %d bytes: the file kept before is still kept",
			large[last], maxCompiledFileBytes+1)
	}
}

// TestCompiledFilesDocumented: the pages that state the cache's bounds
// state the ones compiled.go holds it to.
func TestCompiledFilesDocumented(t *testing.T) {
	for _, tt := range []struct {
		page     string
		wantSaid []string
	}{
		{"THREAT_MODEL.md", []string{
			fmt.Sprintf("it keeps %d files", maxCompiledFiles),
			fmt.Sprintf("at most %d KiB of source", maxCompiledBytes>>10),
			fmt.Sprintf("holds them under %d MiB", maxCompiledHeld>>20),
		}},
		{"library.md", []string{fmt.Sprintf("the last %d compiled", maxCompiledFiles)}},
	} {
		page, err := os.ReadFile(filepath.Join("..", "docs", tt.page))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(page)), " ")
		for _, said := range tt.wantSaid {
			if !strings.Contains(text, said) {
				t.Errorf("docs/%s does not say %q", tt.page, said)
			}
		}
	}
}

// maxCompiledHeld is the most the cache may hold on the heap, filled to
// its bounds: docs/THREAT_MODEL.md gives it.
const maxCompiledHeld = 2 << 20

// TestCompiledFilesHeld fills the cache with the files that compile to the
// most code for their size that were found (many functions in a few
// bytes, functions nested as deep as the parser takes them), and reads
// what the cache holds on the heap, as a pool worker's memory limit would
// count it: at most maxCompiledHeld.
func TestCompiledFilesHeld(t *testing.T) {
	root := testkit.Scratch(t)
	for _, tt := range []struct {
		name string
		src  func(i int) string
	}{
		{"many functions", func(i int) string {
			return fmt.Sprintf("x%d = [", i) + strings.Repeat("lambda:0,", 900) + "]\n"
		}},
		{"nested functions", func(i int) string {
			line := "[" + strings.Repeat("(lambda:", 60) + "0" + strings.Repeat(")", 60) + "],\n"
			return fmt.Sprintf("x%d = [", i) + strings.Repeat(line, 8000/len(line)) + "]\n"
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			forgetCompiled()
			heap := func() uint64 {
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				return m.HeapAlloc
			}
			compileFiles(t, root, "held", 0, maxCompiledFiles, maxCompiledFileBytes, true, tt.src)
			_, n := keptFiles(t)
			filled := heap()
			forgetCompiled()
			held := int64(filled) - int64(heap())
			t.Logf("%d bytes of source held %d KiB on the heap (%.0f times the source)",
				n, held>>10, float64(held)/float64(n))
			if held > maxCompiledHeld {
				t.Errorf("the cache held %d bytes, more than %d", held, maxCompiledHeld)
			}
			if held < int64(n) {
				t.Errorf("the cache held %d bytes, less than its %d bytes of source: "+
					"what the heap was read for is not what it holds", held, n)
			}
		})
	}
}

// TestCompiledFilesShared runs programs from goroutines at once, as a
// host's in-process runs do: more names than the cache keeps, each
// compiled again from other bytes now and then, so that files are kept,
// taken, replaced and put out at once. Each run prints its own program's
// words. A cache without its lock failed here in six of ten runs without
// the race detector (the runtime's check of a map written at once), and
// fails under go test -race.
func TestCompiledFilesShared(t *testing.T) {
	root := testkit.Scratch(t)
	const goroutines, runs, names = 8, 150, 2 * maxCompiledFiles
	errs := make(chan error, goroutines)
	for g := range goroutines {
		go func() {
			for i := range runs {
				var out bytes.Buffer
				in := NewInterp(Config{Budget: budget.MustParse(root, "io"), Cwd: root,
					Stdin: strings.NewReader(""), Stdout: &out, KeepCompiled: true})
				n, version := (g*7+i)%names, i%3
				name := filepath.Join(root, fmt.Sprintf("p%d.vel", n))
				words := fmt.Sprintf("%d %d", n, version)
				c, err := in.CompileSource(name, []byte("print('"+words+"')\n"), root,
					in.Predeclared())
				if err == nil {
					err = in.Exec(c, in.PredeclaredFor(c))
				}
				if err == nil && out.String() != words+"\n" {
					err = fmt.Errorf("%s printed %q, want %q", name, out.String(), words)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range goroutines {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
