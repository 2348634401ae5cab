package door

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestDoorKeepsNothingCompiled: a door reads the program a request names
// itself and hands its text to the pool, whose workers keep nothing
// compiled of text handed in; so no tenant can learn by a run's compile
// time what another ran. Each run by path, or with the same text, compiles
// again, where the same pool's worker takes compiled a file a library
// caller runs by path (the control).
func TestDoorKeepsNothingCompiled(t *testing.T) {
	root := testkit.Scratch(t)
	src := testkit.SlowToCompile("slow")
	if err := os.WriteFile(filepath.Join(root, "slow.vel"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"),
		ImportRoot: root, Receipts: t.TempDir(), Durability: receipt.None})
	compiled := func(rec *receipt.Receipt) time.Duration {
		t.Helper()
		if rec.Outcome.Status != receipt.StatusOK {
			t.Fatalf("run: %+v", rec.Outcome)
		}
		return time.Duration(rec.Timings.Worker.CompileMS * float64(time.Millisecond))
	}
	door := func(req RunRequest) time.Duration {
		t.Helper()
		reply, err := r.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var rec receipt.Receipt
		if err := json.Unmarshal(reply.Receipt, &rec); err != nil {
			t.Fatal(err)
		}
		return compiled(&rec)
	}
	library := func() time.Duration {
		t.Helper()
		res, err := r.pool.Run(context.Background(), sabline.File("slow.vel"), sabline.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return compiled(res.Receipt)
	}
	library() // the file kept in the worker
	var kept, byPath, asText []time.Duration
	for range 3 {
		byPath = append(byPath, door(RunRequest{Path: "slow.vel"}))
		asText = append(asText, door(RunRequest{Source: string(src)}))
		kept = append(kept, library())
	}
	t.Logf("compile: the library's run by path %v; the door's by path %v, as text %v",
		kept, byPath, asText)
	if !testkit.Faster(kept, byPath) || !testkit.Faster(kept, asText) {
		t.Errorf("the door's runs compiled in %v and %v, the library's kept in %v: "+
			"want the door's each compiled", byPath, asText, kept)
	}
}
