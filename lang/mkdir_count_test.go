package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestMkdirCountedHoweverItEnds: an fs.mkdir that makes parents and then
// fails (its last name is longer than the system takes) changed the disk,
// and is a use of its grant, as one that succeeds is: the receipt of a
// run whose only write was such a call said the grant was never used.
// The controls: a call that succeeds is one use however many parents it
// makes, and a call refused before it makes anything is none.
func TestMkdirCountedHoweverItEnds(t *testing.T) {
	long := strings.Repeat("x", 300) // past NAME_MAX, which is 255 on every system we run on
	tests := []struct {
		name     string
		src      string
		code     codes.Code // "" for a run that ends normally
		made     []string   // beneath out, after the run
		wantUses int
	}{
		{
			name:     "made parents then failed",
			src:      "fs.mkdir(\"out/a/b/" + long + "\")\n",
			code:     codes.E314,
			made:     []string{"a", "a/b"},
			wantUses: 1,
		},
		{
			name:     "made parents and the last",
			src:      "fs.mkdir(\"out/a/b/c\")\n",
			made:     []string{"a", "a/b", "a/b/c"},
			wantUses: 1,
		},
		{
			name:     "there already",
			src:      "fs.mkdir(\"out\")\n",
			wantUses: 1,
		},
		{
			name:     "failed before anything was made",
			src:      "fs.mkdir(\"out/" + long + "\")\n",
			code:     codes.E314,
			wantUses: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			out := filepath.Join(dir, "out")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			r := runSrc(t, Config{Budget: budget.MustParse(dir, "fs:write:out@1"), Cwd: dir}, tt.src)
			if tt.code == "" && r.err != nil {
				t.Fatalf("run: %v", r.err)
			}
			if tt.code != "" && codes.CodeOf(r.err) != tt.code {
				t.Fatalf("run: %v, want %s", r.err, tt.code)
			}
			for _, d := range tt.made {
				if fi, err := os.Stat(filepath.Join(out, d)); err != nil || !fi.IsDir() {
					t.Errorf("out/%s was not made (%v)", d, err)
				}
			}
			if got := usesOf(t, r.in, "fs:write:"+out+"@1"); got != tt.wantUses {
				t.Errorf("fs:write:%s@1 used %d times, want %d", out, got, tt.wantUses)
			}
		})
	}
}
