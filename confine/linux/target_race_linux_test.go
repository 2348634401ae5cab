package linux

import (
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
// held on the granted directory.
func TestTargetLandlockRaced(t *testing.T) {
	abi, err := LandlockABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	sub, beside, link := testkit.LinkBeside(t)
	policy := core.OSPolicy(budget.MustParse("/", "io,fs:write:"+sub), core.Options{})
	plan, err := LandlockPlan(policy, core.Needs{}, abi)
	if err != nil {
		t.Fatal(err)
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
			case r.Grant && guard.Within(r.Path, beside):
				return "beside"
			case r.Grant && r.Path == sub:
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
