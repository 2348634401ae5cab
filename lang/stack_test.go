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
			c, err := Compile(prog, pre)
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
