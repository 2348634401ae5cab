package sabline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// slowToCompile is a program of some 7.7 KB, under the most a process
// keeps compiled, that takes a millisecond or more to compile (850
// functions) and nothing to run (they are in a function never called):
// how long a run took says whether it compiled. tag is its first line, a
// comment.
func slowToCompile(tag string) []byte {
	return []byte("# " + tag + "\ndef f():\n    return [" + strings.Repeat("lambda:0,", 850) + "]\n")
}

// faster reports whether the least of kept is under a quarter of the least
// of compiled: a compile spared takes microseconds where one made takes
// milliseconds, however loaded the machine.
func faster(kept, compiled []time.Duration) bool {
	return slices.Min(kept)*4 < slices.Min(compiled)
}

// TestPoolKeepsCompiledFilesOfItsRoot: a pool's worker compiles a program
// it was sent from beneath the import root once, and takes it compiled for
// the next runs of the same bytes; a program whose text the caller handed
// in is compiled at each run, the same bytes under the same name, as is
// one whose bytes changed.
func TestPoolKeepsCompiledFilesOfItsRoot(t *testing.T) {
	root := importRoot(t)
	name := filepath.Join(root, "slow.vel")
	src := slowToCompile("slow")
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
		if err := os.WriteFile(name, slowToCompile(fmt.Sprint("changed ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		changed = append(changed, compiled(sabline.File("slow.vel")))
	}
	t.Logf("compile: first %v; again %v; its text handed in %v; its bytes changed %v",
		first, kept, handed, changed)
	if !faster(kept, handed) {
		t.Errorf("the same file read again compiled in %v, its text handed in in %v: "+
			"want the first taken compiled, the second compiled", kept, handed)
	}
	if !faster(kept, changed) {
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
	wall := func(src []byte) time.Duration {
		t.Helper()
		t0 := time.Now()
		res, err := sabline.Run(context.Background(), sabline.Source(name, src), opts)
		if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
			t.Fatalf("run: %v %+v", err, res.Receipt.Outcome)
		}
		return time.Since(t0)
	}
	src := slowToCompile("slow")
	first := wall(src)
	var kept, changed []time.Duration
	for range 3 {
		kept = append(kept, wall(src))
	}
	for i := range 3 {
		changed = append(changed, wall(slowToCompile(fmt.Sprint("changed ", i))))
	}
	t.Logf("a run: first %v; again %v; its bytes changed %v", first, kept, changed)
	if !faster(kept, changed) {
		t.Errorf("a run of the same bytes took %v, of changed bytes %v: "+
			"want the first taken compiled, the second compiled", kept, changed)
	}
}
