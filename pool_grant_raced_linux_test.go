package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit"
)

// poolRacedRuns is how many runs TestPoolGrantSwappedAsTheWorkerStarts
// sends beside the swaps, each to a worker of its own: unmended, 58 of
// 200 planted beside the grant here, 7 of 40 in another try; with either
// window alone left open, 3 and 7 of 40 (TestTargetLandlockRaced and
// TestInstallLandlockOnTheKernel hold each alone).
const poolRacedRuns = 60

// TestPoolGrantSwappedAsTheWorkerStarts: a pool's ceiling grants writing
// a directory; another process (a run that may write beside it, say)
// exchanges that directory with a link to a directory beside it, again
// and again (renameat2 RENAME_EXCHANGE), while the pool's workers start,
// one a run (pathlib is ffi: its worker is replaced after each). Each
// run plants a file, with pathlib under strict (the kernel alone judges
// its writes), in the directory beside, which no grant names. It must
// never land there, as read from outside. Unmended, two windows were
// won: the worker's check of the grant against its admission (Moved) and
// the rule's own target were two resolutions of the name, and the rule
// was held beside, at level full; and a swap between the ruleset's build
// and its install refused the whole ruleset, and the run went on with no
// Landlock at all (partial). The control: no swap, and a file planted in
// the granted directory lands.
func TestPoolGrantSwappedAsTheWorkerStarts(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	sub, beside, link := testkit.LinkBeside(t)
	root := importRoot(t)
	p := newPool(t, sabline.PoolOptions{
		Budget:  budget.MustParse(root, "io,fs:write:"+sub+",ffi:pathlib"),
		Confine: sabline.ConfineStrict, ImportRoot: root, OnDemand: true, Receipts: t.TempDir()})
	const src = "ffi.module(\"pathlib\").write_text(ARGS[0], \"planted\\n\")\n" +
		"print(\"RESULT written\")\n"
	plant := func(at string) *sabline.Result {
		t.Helper()
		res, err := p.Run(context.Background(), sabline.Source("plant.vel", []byte(src)),
			sabline.RunOptions{Args: []string{at}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// The control: the grant reaches its own directory.
	res := plant(filepath.Join(sub, "planted"))
	if !strings.Contains(string(res.Stdout), "RESULT written") {
		t.Fatalf("the control: %s %q", res.Receipt.Outcome.Code, res.Receipt.Outcome.Message)
	}
	if _, err := os.Lstat(filepath.Join(sub, "planted")); err != nil {
		t.Fatalf("the control: %v", err)
	}

	stop := testkit.Exchanging(t, sub, link)
	witness := filepath.Join(beside, "planted")
	won, withheld := 0, 0
	for i := range poolRacedRuns {
		res := plant(witness)
		params := res.Receipt.RunParameters
		if strings.Contains(params.ConfinementReason, "left out of the kernel's ruleset") {
			withheld++
		}
		// From outside the worker: what the directory beside holds.
		if _, err := os.Lstat(witness); err == nil {
			won++
			t.Errorf("run %d planted %s, which no grant names: %s %q; %s: %s", i, witness,
				res.Receipt.Outcome.Code, res.Stdout, params.Confinement, params.ConfinementReason)
			if err := os.Remove(witness); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d runs beside %d swaps: %d planted beside the grant, %d with the grant withheld",
		poolRacedRuns, stop(), won, withheld)
}
