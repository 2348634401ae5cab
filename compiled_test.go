package sabline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestPoolKeepsCompiledFilesNamedByPath: a pool's worker compiles a
// program its caller named by path once, and takes it compiled for the
// next runs of the same bytes; a program whose text the caller handed in
// is compiled at each run, the same bytes under the same name, as is one
// whose bytes changed.
func TestPoolKeepsCompiledFilesNamedByPath(t *testing.T) {
	root := importRoot(t)
	name := filepath.Join(root, "slow.vel")
	src := testkit.SlowToCompile("slow")
	if err := os.WriteFile(name, src, 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPool(t, sabline.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1,
		ImportRoot: root, Receipts: t.TempDir(), Durability: receipt.None})
	compiled := func(prog sabline.Program) time.Duration {
		t.Helper()
		res, err := p.Run(context.Background(), prog, sabline.RunOptions{})
		if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
			t.Fatalf("run: %v %+v", err, res.Receipt.Outcome)
		}
		return time.Duration(res.Receipt.Timings.Worker.CompileMS * float64(time.Millisecond))
	}
	first := compiled(sabline.File("slow.vel"))
	var kept, handed, changed []time.Duration
	for range 3 {
		kept = append(kept, compiled(sabline.File("slow.vel")))
	}
	for range 3 {
		handed = append(handed, compiled(sabline.Source(name, src)))
	}
	for i := range 3 {
		other := testkit.SlowToCompile(fmt.Sprint("changed ", i))
		if err := os.WriteFile(name, other, 0o644); err != nil {
			t.Fatal(err)
		}
		changed = append(changed, compiled(sabline.File("slow.vel")))
	}
	t.Logf("compile: first %v; again %v; its text handed in %v; its bytes changed %v",
		first, kept, handed, changed)
	if !testkit.Faster(kept, handed) {
		t.Errorf("the same file read again compiled in %v, its text handed in in %v: "+
			"want the first taken compiled, the second compiled", kept, handed)
	}
	if !testkit.Faster(kept, changed) {
		t.Errorf("the same file read again compiled in %v, the file changed in %v: "+
			"want the first taken compiled, the second compiled", kept, changed)
	}
}

// TestInProcessKeepsCompiledFiles: in the caller's own process, a program
// run again with the same bytes under the same name is taken compiled,
// and one whose bytes changed is compiled.
func TestInProcessKeepsCompiledFiles(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "slow.vel")
	opts := sabline.Options{Budget: budget.MustParse(dir, "io"), Cwd: dir, InProcess: true,
		Receipts: t.TempDir(), Durability: receipt.None}
	// The compile's own time, as the receipt says it, not the run's: the
	// rest of a run (its receipt, the machine's load) is no part of what
	// is kept.
	compiled := func(src []byte) time.Duration {
		t.Helper()
		res, err := sabline.Run(context.Background(), sabline.Source(name, src), opts)
		if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
			t.Fatalf("run: %v %+v", err, res.Receipt.Outcome)
		}
		return time.Duration(res.Receipt.Timings.Worker.CompileMS * float64(time.Millisecond))
	}
	src := testkit.SlowToCompile("slow")
	first := compiled(src)
	var kept, changed []time.Duration
	for range 3 {
		kept = append(kept, compiled(src))
	}
	for i := range 3 {
		changed = append(changed, compiled(testkit.SlowToCompile(fmt.Sprint("changed ", i))))
	}
	t.Logf("a run's compile: first %v; again %v; its bytes changed %v", first, kept, changed)
	if !testkit.Faster(kept, changed) {
		t.Errorf("a run of the same bytes compiled in %v, of changed bytes in %v: "+
			"want the first taken compiled, the second compiled", kept, changed)
	}
}
