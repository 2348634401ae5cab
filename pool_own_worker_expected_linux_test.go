package sabline_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestPoolOwnWorkerAsksNoLevelOfItsBudget: a run of a pool that asks for
// no level, whose worker is started for it alone (a narrower budget that
// may make raw calls), is held at the level this machine holds its own
// budget at, not the pool's. Its budget grants a directory not made yet
// (a pool makes none), held beneath the one above it, so its worker is at
// partial where the pool's, whose grant is there, are at full: the run
// runs, at partial, and the directory and file it makes are there, judged from outside
// the worker. The controls: the same run asking for none, and a run of
// the pool's own budget, at full.
func TestPoolOwnWorkerAsksNoLevelOfItsBudget(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	root := importRoot(t)
	shared, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const write = `fs.mkdir(ARGS[0])
fs.write(ARGS[0] + "/made", "x")
print("wrote")
`
	notMade := filepath.Join(shared, "not-made")
	own := budget.MustParse(root, "io,ffi:ctypes,fs:write:"+notMade)
	tests := []struct {
		name    string
		require core.Level
		budget  *budget.Budget // nil: the pool's
		into    string         // the directory the program makes and writes in
		level   core.Level
	}{
		{"a run of its own worker asks for no level", "", &own, notMade, core.Partial},
		{"a run of its own worker asks for none (the control)", core.None, &own, notMade,
			core.Partial},
		{"a run of the pool's budget asks for no level (the control)", "", nil, shared,
			core.Full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPool(t, sabline.PoolOptions{
				Budget:  budget.MustParse(root, "io,ffi:ctypes,fs:write:"+shared),
				Confine: sabline.ConfineStrict, Workers: 1, ImportRoot: root,
				Receipts: t.TempDir(), Require: tt.require, Timeout: testkit.Bound(time.Minute)})
			if err := os.RemoveAll(notMade); err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(context.Background(), sabline.Source("write.vel", []byte(write)),
				sabline.RunOptions{Args: []string{tt.into}, Budget: tt.budget})
			if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
				t.Fatalf("run: %v, %+v", err, res.Receipt.Outcome)
			}
			// From outside the worker: the file is there.
			if _, err := os.Lstat(filepath.Join(tt.into, "made")); err != nil {
				t.Errorf("the run said %q, and the file it wrote is not there: %v", res.Stdout, err)
			}
			if got := res.Receipt.RunParameters.Confinement; got != tt.level {
				t.Errorf("level %s (%s), want %s", got,
					res.Receipt.RunParameters.ConfinementReason, tt.level)
			}
		})
	}
}
