package lang

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// TestCompile compiles small trees of files, main.vel first, and runs the
// ones that compile. In the table, $ROOT is the tree's directory.
func TestCompile(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		wantCode  codes.Code // "" when the program compiles
		wantPos   string     // the position an error reports: a load() of E306 names the statement
		wantMsg   []string   // what a compile error's message holds
		wantOrder []string   // Compiled.Order, relative to $ROOT
		wantOut   string     // standard output of the run
	}{
		{
			name:      "one file",
			files:     map[string]string{"main.vel": "print('hi')\n"},
			wantOrder: []string{"main.vel"},
			wantOut:   "hi\n",
		},
		{
			name: "load relative to the loading file",
			files: map[string]string{
				"main.vel":  "load('lib/a.vel', 'a')\nprint(a)\n",
				"lib/a.vel": "load('b.vel', 'b')\na = 'a' + b\n",
				"lib/b.vel": "b = 'lib/b'\n",
				"b.vel":     "b = 'root b: the wrong file'\n",
			},
			wantOrder: []string{"main.vel", "lib/a.vel", "lib/b.vel"},
			wantOut:   "alib/b\n",
		},
		{
			name: "nested loads, up and down the tree",
			files: map[string]string{
				"main.vel":       "load('x/y/deep.vel', 'd')\nprint(d)\n",
				"x/y/deep.vel":   "load('../../top.vel', 't')\nload('z/leaf.vel', 'l')\nd = t + l\n",
				"top.vel":        "t = 'top'\n",
				"x/y/z/leaf.vel": "l = '+leaf'\n",
			},
			wantOrder: []string{"main.vel", "x/y/deep.vel", "top.vel", "x/y/z/leaf.vel"},
			wantOut:   "top+leaf\n",
		},
		{
			name: "a file loaded twice is compiled once",
			files: map[string]string{
				"main.vel":  "load('lib/a.vel', 'a')\nload('lib/b.vel', 'b')\nprint(a, b)\n",
				"lib/a.vel": "load('b.vel', 'b')\na = 'a' + b\n",
				"lib/b.vel": "b = 'b'\n",
			},
			wantOrder: []string{"main.vel", "lib/a.vel", "lib/b.vel"},
			wantOut:   "ab b\n",
		},
		{
			name: "absolute load path",
			files: map[string]string{
				"main.vel":  "load('$ROOT/lib/a.vel', 'a')\nprint(a)\n",
				"lib/a.vel": "a = 'abs'\n",
			},
			wantOrder: []string{"main.vel", "lib/a.vel"},
			wantOut:   "abs\n",
		},
		{
			name: "load cycle",
			files: map[string]string{
				"main.vel": "load('a.vel', 'a')\n",
				"a.vel":    "load('b.vel', 'b')\na = 1\n",
				"b.vel":    "b = 1\nload('a.vel', 'a')\n",
			},
			wantCode: codes.E306,
			wantPos:  "$ROOT/b.vel:2:1",
			wantMsg:  []string{"load cycle: $ROOT/main.vel -> $ROOT/a.vel -> $ROOT/b.vel -> $ROOT/a.vel"},
		},
		{
			name:     "a program that loads itself",
			files:    map[string]string{"main.vel": "load('main.vel', 'x')\nx = 1\n"},
			wantCode: codes.E306,
			wantPos:  "$ROOT/main.vel:1:1",
			wantMsg:  []string{"load cycle: $ROOT/main.vel -> $ROOT/main.vel"},
		},
		{
			name:     "missing load",
			files:    map[string]string{"main.vel": "y = 1\nload('nope.vel', 'x')\n"},
			wantCode: codes.E306,
			wantPos:  "$ROOT/main.vel:2:1",
			wantMsg:  []string{"$ROOT/main.vel loads $ROOT/nope.vel"},
		},
		{
			name: "missing nested load",
			files: map[string]string{
				"main.vel":  "load('lib/a.vel', 'a')\n",
				"lib/a.vel": "a = 1\n\nload('gone.vel', 'g')\n",
			},
			wantCode: codes.E306,
			wantPos:  "$ROOT/lib/a.vel:3:1",
			wantMsg:  []string{"$ROOT/lib/a.vel loads $ROOT/lib/gone.vel"},
		},
		{
			name:     "syntax error in the program",
			files:    map[string]string{"main.vel": "x = 1\ny = )\n"},
			wantCode: codes.E304,
			wantPos:  "$ROOT/main.vel:2:5",
		},
		{
			name:     "undefined name in the program",
			files:    map[string]string{"main.vel": "x = 1\nprint(nowhere)\n"},
			wantCode: codes.E304,
			wantPos:  "$ROOT/main.vel:2:7",
			wantMsg:  []string{"undefined: nowhere"},
		},
		{
			name: "syntax error in a loaded file",
			files: map[string]string{
				"main.vel":  "load('lib/a.vel', 'a')\n",
				"lib/a.vel": "a = 1\nb = )\n",
			},
			wantCode: codes.E306,
			wantPos:  "$ROOT/lib/a.vel:2:5",
		},
		{
			name: "a load of a name the file does not define",
			files: map[string]string{
				"main.vel":  "x = 1\nload('lib/a.vel', 'nothing')\n",
				"lib/a.vel": "a = 1\n",
			},
			wantOrder: []string{"main.vel", "lib/a.vel"},
			wantCode:  codes.E305,
			wantPos:   "$ROOT/main.vel:2:1",
			wantMsg:   []string{"nothing"},
		},
		{
			name:     "missing program",
			files:    map[string]string{"other.vel": "x = 1\n"},
			wantCode: codes.E316,
			wantMsg:  []string{"program $ROOT/main.vel"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testkit.Scratch(t)
			fill := strings.NewReplacer("$ROOT", root).Replace
			for name, src := range tt.files {
				testkit.WriteFile(t, filepath.Join(root, name), fill(src))
			}
			var out bytes.Buffer
			in := NewInterp(Config{Budget: budget.MustParse(root, "io"), Cwd: root, Stdin: strings.NewReader(""), Stdout: &out})
			pre := in.Predeclared()
			c, err := in.Compile(filepath.Join(root, "main.vel"), pre)
			if tt.wantOrder == nil {
				msgs := make([]string, len(tt.wantMsg))
				for i, m := range tt.wantMsg {
					msgs[i] = fill(m)
				}
				testkit.WantError(t, err, tt.wantCode, fill(tt.wantPos), msgs...)
				if c != nil {
					t.Errorf("a failed compile returned %+v", c)
				}
				return
			}
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			var order []string
			for _, f := range c.Order {
				rel, err := filepath.Rel(root, f.Path)
				if err != nil {
					t.Fatal(err)
				}
				order = append(order, filepath.ToSlash(rel))
			}
			if !slices.Equal(order, tt.wantOrder) {
				t.Errorf("order %q, want %q", order, tt.wantOrder)
			}
			wantDigests(t, c)
			err = in.Exec(c, pre)
			if tt.wantCode == "" {
				if err != nil {
					t.Fatalf("run: %v", err)
				}
			} else {
				testkit.WantError(t, err, tt.wantCode, fill(tt.wantPos), tt.wantMsg...)
			}
			if out.String() != tt.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantOut)
			}
		})
	}
}

// wantDigests checks that every file of c is named once in Order with the
// sha256 of its bytes on disk, the program first.
func wantDigests(t *testing.T, c *Compiled) {
	t.Helper()
	if len(c.Order) == 0 || c.Order[0].Path != c.Main {
		t.Fatalf("order %+v does not start with the program %s", c.Order, c.Main)
	}
	if len(c.Files) != len(c.Order) {
		t.Errorf("%d files compiled, %d in the order", len(c.Files), len(c.Order))
	}
	for _, f := range c.Order {
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if want := hex.EncodeToString(sum[:]); f.SHA256 != want {
			t.Errorf("%s: digest %s, want %s", f.Path, f.SHA256, want)
		}
		if _, ok := c.Files[f.Path]; !ok {
			t.Errorf("%s is in the order but was not compiled", f.Path)
		}
	}
	if c.Digest() != c.Order[0].SHA256 {
		t.Errorf("Digest() %s, want the program's %s", c.Digest(), c.Order[0].SHA256)
	}
}

// TestCompileRelativePath checks that a program named relative to the
// working directory is compiled under its absolute path.
func TestCompileRelativePath(t *testing.T) {
	root := testkit.Scratch(t)
	testkit.WriteFile(t, filepath.Join(root, "p", "main.vel"), "x = 1\n")
	t.Chdir(root)
	c, err := NewInterp(Config{}).Compile(filepath.Join("p", "main.vel"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "p", "main.vel"); c.Main != want {
		t.Errorf("Main %q, want %q", c.Main, want)
	}
	wantDigests(t, c)
}

// TestCompileMissingWraps checks that a missing file's error still says
// what the system answered.
func TestCompileMissingWraps(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		wantCode codes.Code
	}{
		{name: "program", files: nil, wantCode: codes.E316},
		{name: "load", files: map[string]string{"main.vel": "load('gone.vel', 'g')\n"}, wantCode: codes.E306},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testkit.Scratch(t)
			for name, src := range tt.files {
				testkit.WriteFile(t, filepath.Join(root, name), src)
			}
			_, err := NewInterp(Config{}).Compile(filepath.Join(root, "main.vel"), nil)
			if codes.CodeOf(err) != tt.wantCode {
				t.Errorf("code %q (%v), want %s", codes.CodeOf(err), err, tt.wantCode)
			}
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%v does not wrap %v", err, fs.ErrNotExist)
			}
		})
	}
}

// TestCompileLoadsStayInTheProgramsDirectory: a load is read before any
// budget check, so it may not leave the program's own directory, by ".."
// or by a link; a load beneath it is the positive control.
func TestCompileLoadsStayInTheProgramsDirectory(t *testing.T) {
	top := t.TempDir()
	prog := filepath.Join(top, "prog")
	for path, src := range map[string]string{
		filepath.Join(top, "secret.vel"):       "x = 1\n",
		filepath.Join(prog, "lib", "ok.vel"):   "y = 2\n",
		filepath.Join(prog, "inside.vel"):      "load(\"lib/ok.vel\", \"y\")\nprint(y)\n",
		filepath.Join(prog, "dotdot.vel"):      "load(\"../secret.vel\", \"x\")\n",
		filepath.Join(prog, "absolute.vel"):    "load(\"" + filepath.ToSlash(filepath.Join(top, "secret.vel")) + "\", \"x\")\n",
		filepath.Join(prog, "throughlink.vel"): "load(\"link/secret.vel\", \"x\")\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(top, filepath.Join(prog, "link")); err != nil {
		t.Skip("no symbolic links here: ", err)
	}
	tests := []struct {
		name     string
		file     string
		wantCode codes.Code
	}{
		{name: "beneath the program's directory", file: "inside.vel"},
		{name: "up with ..", file: "dotdot.vel", wantCode: codes.E306},
		{name: "an absolute path outside", file: "absolute.vel", wantCode: codes.E306},
		{name: "through a link that leads out", file: "throughlink.vel", wantCode: codes.E306},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := NewInterp(Config{Cwd: prog})
			_, err := in.Compile(filepath.Join(prog, tc.file), in.Predeclared())
			if got := codes.CodeOf(err); got != tc.wantCode {
				t.Fatalf("code %q, want %q (%v)", got, tc.wantCode, err)
			}
			if tc.wantCode != "" && !strings.Contains(err.Error(), "outside") {
				t.Fatalf("the refusal does not say the load is outside: %v", err)
			}
		})
	}
}

// TestLoadReadsProgramsOnly: a load reads .vel files only, as written and
// once its links are followed, and none the guard keeps from a grant of
// the program's directory (a dot-entry of a home, Sabline's receipts): a
// program kept in a home, or a client of a door whose import root holds
// the operator's .env, reads nothing else by load(). No refusal quotes
// the text of a file that is not a program. Each refusal has its control:
// the .vel file beside it, loaded the same way.
func TestLoadReadsProgramsOnly(t *testing.T) {
	const secret = "tok_live_4242"
	tests := []struct {
		name     string
		load     string
		wantCode codes.Code // "" for a load that compiles
		wantMsg  string
	}{
		{name: "a .vel file beside the program", load: "lib.vel"},
		{name: "the operator's .env", load: ".env", wantCode: codes.E306, wantMsg: ".env is not a .vel file"},
		{name: "a file of no extension", load: "token", wantCode: codes.E306, wantMsg: "not a .vel file"},
		{name: "a .vel link to the .env", load: "env.vel", wantCode: codes.E306, wantMsg: "to a file that is not a .vel file"},
		{name: "a .vel link to a .vel file", load: "alias.vel"},
		{name: "a dot-entry of the home the program is kept in", load: ".config/app/conf.vel", wantCode: codes.E318,
			wantMsg: "a dot-entry of a home"},
		{name: "Sabline's receipts beneath the program's directory", load: "receipts/r.vel", wantCode: codes.E318,
			wantMsg: "Sabline's receipts and tokens"},
		{name: "a .vel file in a directory of its own", load: "notes/n.vel"},
	}
	home := testkit.Scratch(t)
	for name, data := range map[string]string{
		"lib.vel":              "x = 1\n",
		".env":                 "DB_PASSWORD = \"" + secret + "\"\nx = 1\n",
		"token":                "API_TOKEN=" + secret + "\n",
		".config/app/conf.vel": "x = \"" + secret + "\"\n",
		"receipts/r.vel":       "x = \"" + secret + "\"\n",
		"notes/n.vel":          "x = 1\n",
	} {
		testkit.WriteFile(t, filepath.Join(home, name), data)
	}
	for link, to := range map[string]string{"env.vel": ".env", "alias.vel": "lib.vel"} {
		if err := os.Symlink(to, filepath.Join(home, link)); err != nil {
			t.Skip("no symbolic links here: ", err)
		}
	}
	g := guard.Build(guard.Inputs{Home: home, Sabline: []string{filepath.Join(home, "receipts")}}, guard.OS())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := NewInterp(Config{Cwd: home, Guard: g})
			src := fmt.Sprintf("load(%q, \"x\")\nprint(x)\n", tc.load)
			main, sent := filepath.Join(home, "main.vel"), filepath.Join(home, "sent.vel")
			testkit.WriteFile(t, main, src)
			for _, c := range []struct {
				name    string
				file    string
				compile func() (*Compiled, error)
			}{
				{"a program file", main, func() (*Compiled, error) {
					return in.Compile(main, in.Predeclared())
				}},
				{"a program's text under an import root", sent, func() (*Compiled, error) {
					return in.CompileSource(sent, []byte(src), home, in.Predeclared())
				}},
			} {
				_, err := c.compile()
				if tc.wantCode == "" {
					if err != nil {
						t.Errorf("%s: %v", c.name, err)
					}
					continue
				}
				testkit.WantError(t, err, tc.wantCode, c.file+":1:1", tc.wantMsg)
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("%s: the refusal quotes the file: %v", c.name, err)
				}
			}
		})
	}
}
