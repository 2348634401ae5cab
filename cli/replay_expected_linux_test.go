package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt"
)

// TestReplayOfAGrantNotMadeYet: a run that asked for no level asked for
// the level this machine holds its budget at once its supervisor has made
// the directories granted that are not there yet, as the replay's will.
// A replay asking for less is refused (E328) whether or not such a
// directory is there when it is asked: it was let through, asking for
// partial, where the directory had been removed since, which had the
// level read before it was made, though the replay's run makes it and
// would be held in full. The control: asking for full, it is let through
// either way.
func TestReplayOfAGrantNotMadeYet(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "not-made")
	b := budget.MustParse(dir, "io", "fs:write:"+out)
	// Judged by a grant of the directory that is there: the level of b
	// itself is what the test holds.
	there := budget.MustParse(dir, "io", "fs:write:"+dir)
	if l := confine.OnThisMachine(core.OSPolicy(there, core.Options{})).Level; l != core.Full {
		t.Skipf("this machine holds %v at %s: no level lies below it but none", there, l)
	}
	rec := receipt.NewForSource(filepath.Join(dir, "p.vel"), []byte("print(1)\n"), b, nil)
	for _, made := range []bool{false, true} {
		if made {
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		f := runFlags{require: string(core.Partial)}
		if _, err := replayRun(rec, &f, dir, true); codes.CodeOf(err) != codes.E328 ||
			!strings.Contains(err.Error(), "the level this machine holds the budget at, full") {
			t.Errorf("partial, the directory made %v: %v; want E328, below full", made, err)
		}
		f = runFlags{require: string(core.Full)}
		if r, err := replayRun(rec, &f, dir, true); err != nil || r.Require != core.Full {
			t.Errorf("full (the control), the directory made %v: %v, %q; want it asked", made,
				err, r.Require)
		}
	}
}
