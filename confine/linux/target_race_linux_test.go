package linux

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// targetTries is how many times TestTargetLandlockRaced resolves its
// ruleset beside the swaps: unmended, some 1 in 40 tries was won here
// (125 to 201 of 5,000 in three runs).
const targetTries = 5000

// TestTargetLandlockRaced: a pool admitted a write grant of a directory;
// another process exchanges that directory, again and again, with a link
// to a directory beside it that no grant names (renameat2
// RENAME_EXCHANGE: the name is always one or the other) while the worker
// resolves its ruleset. Moved and the rule's own target were two
// resolutions of the name: where Moved met the directory and the target
// the link, the grant's rule was held on the directory beside it, and a
// pool's run wrote there at level full (TestPoolGrantSwappedAsTheWorkerStarts).
// Each resolution now is either held where it was admitted or withheld:
// no try holds a rule beside it. The control: no swap, and the rule is
// held on the granted directory. The same holds of a TLS root the
// operator's environment names (LandlockRule.Operator), admitted as a
// grant is.
func TestTargetLandlockRaced(t *testing.T) {
	abi, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	t.Run("a grant", func(t *testing.T) { targetRaced(t, abi, false) })
	t.Run("the operator's TLS root", func(t *testing.T) { targetRaced(t, abi, true) })
}

// targetRaced is TestTargetLandlockRaced of a grant, or of the operator's
// path (operator) in its place.
func targetRaced(t *testing.T, abi int, operator bool) {
	sub, beside, link := testkit.LinkBeside(t)
	policy := core.OSPolicy(budget.MustParse("/", "io,fs:write:"+sub), core.Options{})
	plan, err := LandlockPlan(policy, core.Needs{}, abi)
	if err != nil {
		t.Fatal(err)
	}
	if operator {
		for i, r := range plan.Rules {
			if r.Path == sub {
				plan.Rules[i].Grant, plan.Rules[i].Operator = false, true
			}
		}
	}
	admitted := map[string]string{sub: sub}
	// held says where the grant's rule is held: "sub", "beside" or
	// "withheld".
	held := func() string {
		carved, applied, err := targetLandlock(plan, nil, admitted)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range carved.Rules {
			switch {
			case (r.Grant || r.Operator) && guard.Within(r.Path, beside):
				return "beside"
			case (r.Grant || r.Operator) && r.Path == sub:
				return "sub"
			}
		}
		if len(applied.Carving.Withheld) == 0 {
			t.Fatalf("no rule of the grant, and none withheld: %+v", carved.Rules)
		}
		return "withheld"
	}
	if got := held(); got != "sub" {
		t.Fatalf("the control, no swap: the grant is %s, want held on %s", got, sub)
	}

	stop := testkit.Exchanging(t, sub, link)
	seen := map[string]int{}
	for range targetTries {
		seen[held()]++
	}
	t.Logf("%d tries beside %d swaps: %v", targetTries, stop(), seen)
	if seen["beside"] > 0 {
		t.Errorf("%d of %d tries held the write grant of %s on %s, where a link led it",
			seen["beside"], targetTries, sub, beside)
	}
}

// TestTargetLandlockMissingGrantAdmitted: a grant of a file not there yet
// is held beneath its nearest existing parent (Missing), and its check
// against its admission compares the path it resolves to as written
// beneath that parent (rejoin), as the admission resolved it: a grant
// admitted where it still resolves is held, not withheld. The control:
// the same grant admitted where it no longer resolves is withheld.
func TestTargetLandlockMissingGrantAdmitted(t *testing.T) {
	abi, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(base, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// Through a link, so that the parent's resolution is not the path as
	// written.
	link := filepath.Join(base, "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(link, "later.txt")
	policy := core.OSPolicy(budget.MustParse("/", "io,fs:read:"+missing), core.Options{})
	plan, err := LandlockPlan(policy, core.Needs{}, abi)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		was      string
		wantHeld bool
	}{
		{name: "admitted where it resolves", was: guard.Resolved(missing), wantHeld: true},
		{name: "admitted elsewhere (the control)", was: filepath.Join(base, "elsewhere", "later.txt")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			carved, applied, err := targetLandlock(plan, nil, map[string]string{missing: tc.was})
			if err != nil {
				t.Fatal(err)
			}
			held := slices.ContainsFunc(carved.Rules, func(r LandlockRule) bool {
				return r.Grant && r.Path == sub
			})
			withheld := slices.Contains(applied.Carving.Withheld, missing)
			if held != tc.wantHeld || withheld == tc.wantHeld {
				t.Errorf("held on %s %v, withheld %v (%q); want held %v", sub, held, withheld,
					applied.Carving.Withheld, tc.wantHeld)
			}
			if said := slices.Contains(applied.Missing, missing); said != tc.wantHeld {
				t.Errorf("said held beneath a parent %v (%q), want %v", said, applied.Missing,
					tc.wantHeld)
			}
		})
	}
}
