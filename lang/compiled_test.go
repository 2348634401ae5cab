package lang

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
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
	tests := []struct {
		name   string
		files  map[string]string // main.vel and what it loads
		extra  bool              // the name extra is predeclared at the first compile
		change func(t *testing.T, root string)
		extra2 bool // ... and at the second
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
			extra2:   true,
			wantSame: []string{"main.vel"},
			wantOut:  "one\n",
		},
		{
			name:     "a name the file uses is predeclared no longer",
			files:    map[string]string{"main.vel": "print(extra)\n"},
			extra:    true,
			wantCode: codes.E304,
			wantPos:  "$ROOT/main.vel:1:7",
			wantMsg:  "undefined: extra",
		},
		{
			name:    "a name the file binds itself is predeclared now",
			files:   map[string]string{"main.vel": "def f():\n    return extra\nextra = 'own'\nprint(f())\n"},
			extra2:  true,
			wantOut: "own\n",
			// the resolver never asks of a name the file binds: kept
			wantSame: []string{"main.vel"},
		},
		{
			name: "a load changed",
			files: map[string]string{
				"main.vel": "load('lib.vel', 'word')\nprint(word)\n",
				"lib.vel":  "word = 'one'\n",
			},
			change: func(t *testing.T, root string) {
				testkit.WriteFile(t, filepath.Join(root, "lib.vel"), "word = 'two'\n")
			},
			wantSame: []string{"main.vel"},
			wantOut:  "two\n",
		},
		{
			name: "a load made a cycle",
			files: map[string]string{
				"main.vel": "load('lib.vel', 'word')\nprint(word)\n",
				"lib.vel":  "word = 'one'\n",
			},
			change: func(t *testing.T, root string) {
				testkit.WriteFile(t, filepath.Join(root, "lib.vel"), "load('main.vel', 'x')\nword = 'two'\n")
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
				Stdin: strings.NewReader(""), Stdout: &out})
			names := func(extra bool) starlark.StringDict {
				d := in.Predeclared()
				if extra {
					d["extra"] = starlark.String("predeclared")
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
			if !maps.Equal(second.uses, first.uses) && tt.extra == tt.extra2 {
				t.Errorf("names used %v, the first compile's %v", second.uses, first.uses)
			}
			if err := in.Exec(second, in.PredeclaredFor(second)); err != nil {
				t.Fatalf("run: %v", err)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantOut)
			}
		})
	}
}

// TestCompiledFilesBounds fills the cache past each of its bounds and
// reads what it kept: at most maxCompiledFiles files and maxCompiledBytes
// of source, the ones compiled last, and no file larger than
// maxCompiledFileBytes.
func TestCompiledFilesBounds(t *testing.T) {
	root := testkit.Scratch(t)
	in := NewInterp(Config{Budget: budget.MustParse(root, "io"), Cwd: root,
		Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}})
	compileAll := func(prefix string, n, size int) []string {
		var names []string
		for i := range n {
			name := filepath.Join(root, fmt.Sprintf("%s%d.vel", prefix, i))
			src := fmt.Sprintf("x = %d\n", i)
			src += "#" + strings.Repeat("-", size-len(src)-2) + "\n"
			if _, err := in.CompileSource(name, []byte(src), root, in.Predeclared()); err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
		return names
	}
	kept := func() (names []string, bytes int) {
		compiledFiles.Lock()
		defer compiledFiles.Unlock()
		for _, name := range compiledFiles.order {
			bytes += len(compiledFiles.byName[name].src)
		}
		if len(compiledFiles.order) != len(compiledFiles.byName) || bytes != compiledFiles.bytes {
			t.Fatalf("the cache's order names %d files of %d bytes, its map %d, its count %d bytes",
				len(compiledFiles.order), bytes, len(compiledFiles.byName), compiledFiles.bytes)
		}
		return slices.Clone(compiledFiles.order), bytes
	}

	// Small files: the count bounds them.
	small := compileAll("small", maxCompiledFiles+5, 100)
	names, _ := kept()
	if want := small[5:]; !slices.Equal(names, want) {
		t.Errorf("kept %d files %q, want the last %d compiled", len(names), names, len(want))
	}
	// Compiled again, a file becomes the last compiled.
	compileAll("small", 1, 100)
	if names, _ := kept(); names[len(names)-1] != small[0] {
		t.Errorf("the file compiled last is %s, want %s", names[len(names)-1], small[0])
	}

	// Files of the largest size kept: the bytes bound them.
	large := compileAll("large", maxCompiledBytes/maxCompiledFileBytes+3, maxCompiledFileBytes)
	names, n := kept()
	if n > maxCompiledBytes || len(names) != maxCompiledBytes/maxCompiledFileBytes {
		t.Errorf("kept %d files of %d bytes, want %d (at most %d bytes)",
			len(names), n, maxCompiledBytes/maxCompiledFileBytes, maxCompiledBytes)
	}
	if want := large[len(large)-len(names):]; !slices.Equal(names, want) {
		t.Errorf("kept %q, want the last compiled", names)
	}

	// A file past the size of one is compiled and not kept.
	over := compileAll("over", 1, maxCompiledFileBytes+1)
	if names, _ := kept(); slices.Contains(names, over[0]) {
		t.Errorf("a file of %d bytes was kept", maxCompiledFileBytes+1)
	}
}

// TestCompiledFilesShared runs programs from goroutines at once, some the
// same file and some not, as a host's in-process runs do: each run prints
// its own program's word (go test -race reads the cache's locking).
func TestCompiledFilesShared(t *testing.T) {
	root := testkit.Scratch(t)
	const runs = 40
	errs := make(chan error, runs)
	for i := range runs {
		go func() {
			var out bytes.Buffer
			in := NewInterp(Config{Budget: budget.MustParse(root, "io"), Cwd: root,
				Stdin: strings.NewReader(""), Stdout: &out})
			word := fmt.Sprint(i % 3)
			name := filepath.Join(root, "p"+word+".vel")
			c, err := in.CompileSource(name, []byte("print('"+word+"')\n"), root, in.Predeclared())
			if err == nil {
				err = in.Exec(c, in.PredeclaredFor(c))
			}
			if err == nil && out.String() != word+"\n" {
				err = fmt.Errorf("%s printed %q", name, out.String())
			}
			errs <- err
		}()
	}
	for range runs {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
