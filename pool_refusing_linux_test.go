package sabline_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/receipt"
)

// TestPoolRefusing: a pool that requires full confinement says a run
// would be refused (E326) once a granted directory is gone, before any
// run is, since a worker started then holds it beneath the directory
// above; a run that needs a new worker is refused so, and Refusing then
// says that start's refusal. So does a pool that asks for no level, held
// to the level this machine held its policy at when it started (full):
// Refusing said nothing of it, and a server so held said it was ready
// while every run it took was refused. The controls: the directory there
// at the start, and there again, and the pool refuses nothing, and runs.
func TestPoolRefusing(t *testing.T) {
	if confine.Probe().LandlockABI < 4 {
		t.Skip("full confinement of a granted directory needs Landlock ABI 4 and later")
	}
	for _, require := range []core.Level{core.Full, ""} {
		t.Run(cmp.Or(string(require), "no level asked"), func(t *testing.T) {
			root := importRoot(t)
			data := filepath.Join(t.TempDir(), "data")
			if err := os.Mkdir(data, 0o755); err != nil {
				t.Fatal(err)
			}
			// No worker is kept idle: each run starts one, and finds the
			// directory as it is then.
			p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io,fs:read:"+data),
				Workers: 1, MaxIdle: -1, IdleTimeout: time.Millisecond, ImportRoot: root,
				Require: require, Receipts: t.TempDir()})
			run := func() (*sabline.Result, error) {
				t.Helper()
				// A retired worker is gone from Workers before its slot waits
				// for the next run: the run then starts a worker of its own.
				for deadline := time.Now().Add(time.Minute); len(p.Workers()) > 0; {
					if time.Now().After(deadline) {
						t.Fatalf("the idle worker was not retired: %v", p.Workers())
					}
					time.Sleep(time.Millisecond)
				}
				return p.Run(context.Background(), sabline.File("hello.vel"), sabline.RunOptions{})
			}
			ran := func(when string) {
				t.Helper()
				if err := p.Refusing(); err != nil {
					t.Errorf("Refusing %s: %v, want nil", when, err)
				}
				if res, err := run(); err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
					t.Errorf("a run %s: %v, %+v; want it run", when, err, res.Receipt.Outcome)
				}
			}
			ran("with the directory there")

			if err := os.Remove(data); err != nil {
				t.Fatal(err)
			}
			if err := p.Refusing(); codes.CodeOf(err) != codes.E326 {
				t.Errorf("Refusing once the directory is gone: %v, want E326", err)
			}
			if _, err := run(); codes.CodeOf(err) != codes.E326 {
				t.Errorf("a run once the directory is gone: %v, want E326", err)
			}
			if err := p.Refusing(); codes.CodeOf(err) != codes.E326 {
				t.Errorf("Refusing after a run was refused: %v, want E326", err)
			}

			if err := os.Mkdir(data, 0o755); err != nil {
				t.Fatal(err)
			}
			ran("with the directory there again")
		})
	}
}
