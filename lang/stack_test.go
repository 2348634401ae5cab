package lang

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestRunErrorStack checks that a run error carries the call stack across
// the loaded files, innermost first, each frame with its file, line,
// column and function, and that its position is the innermost frame.
func TestRunErrorStack(t *testing.T) {
	dir := testkit.Scratch(t)
	prog := filepath.Join(dir, "main.vel")
	lib := filepath.Join(dir, "lib", "util.vel")
	testkit.WriteFile(t, lib, "def read_it(p):\n    return fs.read(p)\n\ndef twice(p):\n    return read_it(p)\n")
	testkit.WriteFile(t, prog, "load(\"lib/util.vel\", \"twice\")\n\ndef main():\n    twice(\"/nonexistent/x\")\n\nmain()\n")
	for _, tt := range []struct {
		name     string
		budget   string
		wantCode codes.Code
	}{
		{name: "a refusal of the runtime's", budget: "io", wantCode: codes.E302},
		{name: "an error of the system's", budget: "fs:read", wantCode: codes.E314},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := NewInterp(Config{Budget: budget.MustParse(dir, tt.budget), Cwd: dir, Stdin: strings.NewReader("")})
			pre := in.Predeclared()
			c, err := in.Compile(prog, pre)
			if err != nil {
				t.Fatal(err)
			}
			err = in.Exec(c, pre)
			want := []string{lib + ":2:19 in read_it", lib + ":5:19 in twice", prog + ":4:10 in main", prog + ":6:5 in <toplevel>"}
			testkit.WantError(t, err, tt.wantCode, lib+":2:19")
			if e, _ := err.(*codes.Error); e == nil || !slices.Equal(e.Stack, want) {
				t.Errorf("stack %q, want %q", e.Stack, want)
			}
		})
	}
}

// TestDeepRefusalStack: a refusal made 45,000 calls deep carries a stack
// cut to codes.MaxStackFrames, the innermost frames and the outermost
// with a line that counts the calls between; at 30 calls (the control)
// every frame is kept.
func TestDeepRefusalStack(t *testing.T) {
	dir := testkit.Scratch(t)
	prog := filepath.Join(dir, "deep.vel")
	testkit.WriteFile(t, prog, "def f(n):\n    if n == 0:\n        return fs.read(\"/etc/shadow\")\n    return f(n - 1)\n\nf(int(ARGS[0]))\n")
	for _, tt := range []struct {
		depth      string
		wantFrames int
		wantGap    string // the line in place of the calls left out; "" for none
	}{
		{depth: "30", wantFrames: 32},
		{depth: "45000", wantFrames: codes.MaxStackFrames, wantGap: "... 44971 calls not recorded ..."},
	} {
		t.Run(tt.depth, func(t *testing.T) {
			in := NewInterp(Config{Budget: budget.MustParse(dir, "io"), Cwd: dir, Args: []string{tt.depth}})
			pre := in.Predeclared()
			c, err := in.Compile(prog, pre)
			if err != nil {
				t.Fatal(err)
			}
			err = in.Exec(c, pre)
			testkit.WantError(t, err, codes.E302, prog+":3:23")
			e := err.(*codes.Error)
			if len(e.Stack) != tt.wantFrames {
				t.Fatalf("%d frames, want %d", len(e.Stack), tt.wantFrames)
			}
			if e.Stack[0] != prog+":3:23 in f" || e.Stack[len(e.Stack)-1] != prog+":6:2 in <toplevel>" {
				t.Errorf("innermost %q, outermost %q: want the refused read and the top level", e.Stack[0], e.Stack[len(e.Stack)-1])
			}
			gaps := slices.IndexFunc(e.Stack, codes.IsStackGap)
			switch {
			case tt.wantGap == "" && gaps >= 0:
				t.Errorf("a line counts calls left out (%q): every frame should be kept", e.Stack[gaps])
			case tt.wantGap != "" && (gaps < 0 || e.Stack[gaps] != tt.wantGap):
				t.Errorf("stack %q, want a line %q", e.Stack, tt.wantGap)
			}
		})
	}
}
