package sabline_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// TestRunNestsTooDeep: a program's text whose syntax tree nests past
// lang.MaxNesting (a chain of additions, 200 KB) is refused at its
// compile, in a worker and in a pool: E304 in the receipt read back from
// disk, nothing printed. A chain of some millions (a few MiB, within
// program.MaxBytes) overflowed the worker's stack, E310 with a crash
// report, after seconds and a GiB of stack; this one compiled and ran.
// A chain within the bound runs and prints its sum (the control).
func TestRunNestsTooDeep(t *testing.T) {
	dir := t.TempDir()
	receipts := filepath.Join(dir, "receipts")
	b := budget.MustParse(dir, "io")
	pool, err := sabline.NewPool(sabline.PoolOptions{Budget: b, ImportRoot: dir,
		Timeout: time.Minute, Receipts: receipts})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, n := range []int{lang.MaxNesting / 2, 100000} {
		src := "x = 1" + strings.Repeat("+1", n) + "\nprint(x)\n"
		prog := sabline.Source(filepath.Join(dir, "deep.vel"), []byte(src))
		inWorker, werr := sabline.Run(context.Background(), prog,
			sabline.Options{Budget: b, Cwd: dir, Timeout: time.Minute, Receipts: receipts})
		inPool, perr := pool.Run(context.Background(), prog, sabline.RunOptions{})
		results := map[string]*sabline.Result{"in a worker": inWorker, "in a pool": inPool}
		for where, res := range results {
			if res == nil {
				t.Fatalf("%d additions %s: no result (%v, %v)", n, where, werr, perr)
			}
			if _, err := res.Receipt.Stored(); err != nil {
				t.Fatalf("%d additions %s: the receipt: %v", n, where, err)
			}
			rec, err := receipt.FindRun(receipts, res.Receipt.RunID)
			if err != nil {
				t.Fatal(err)
			}
			o, out := rec.Outcome, string(res.Stdout)
			if n < lang.MaxNesting {
				if o.Status != receipt.StatusOK || strings.TrimSpace(out) != strconv.Itoa(n+1) {
					t.Errorf("%d additions %s: %s %s %q, printed %q; want it run, printing %d",
						n, where, o.Status, o.Code, o.Message, out, n+1)
				}
				continue
			}
			if o.Code != codes.E304 || !strings.Contains(o.Message, "nests deeper than") ||
				out != "" {
				t.Errorf("%d additions %s: %s %s %q, printed %q; want E304 naming the bound",
					n, where, o.Status, o.Code, o.Message, out)
			}
		}
	}
}

// TestMemoryLimitBound: a memory limit past run.MaxMemoryMB (1 PiB) is
// refused, E301, in a run and a pool, nothing printed: 2^44 MB wrapped to
// a limit of 0 bytes in the worker and the supervisor, and the run ended
// E308 "over its memory limit of 0 MB" (or, ending first, ran with its
// receipt naming a limit it was not held to). The bound itself runs (the
// control).
func TestMemoryLimitBound(t *testing.T) {
	dir := t.TempDir()
	receipts := filepath.Join(dir, "receipts")
	b := budget.MustParse(dir, "io")
	prog := sabline.Source(filepath.Join(dir, "p.vel"),
		[]byte("x = 0\nfor i in range(200000):\n    x += i\nprint(x)\n"))
	for _, mb := range []int{run.MaxMemoryMB, 1 << 44} {
		res, err := sabline.Run(context.Background(), prog, sabline.Options{Budget: b, Cwd: dir,
			Timeout: time.Minute, MaxMemoryMB: mb, Receipts: receipts})
		pool, perr := sabline.NewPool(sabline.PoolOptions{Budget: b, ImportRoot: dir,
			Timeout: time.Minute, MaxMemoryMB: mb, Receipts: receipts, Workers: 1})
		if perr == nil {
			pool.Close()
		}
		if mb <= run.MaxMemoryMB {
			if err != nil || res.Err() != nil || strings.TrimSpace(string(res.Stdout)) !=
				"19999900000" || perr != nil {
				t.Errorf("a limit of %d MB: %v, %v, printed %q; pool: %v; want it run", mb, err,
					res.Err(), res.Stdout, perr)
			}
			continue
		}
		var code codes.Code
		if res != nil {
			rec, ferr := receipt.FindRun(receipts, res.Receipt.RunID)
			if ferr != nil {
				t.Fatal(ferr)
			}
			code = rec.Outcome.Code
		}
		if codes.CodeOf(err) != codes.E301 || code != codes.E301 || len(res.Stdout) != 0 ||
			codes.CodeOf(perr) != codes.E301 {
			t.Errorf("a limit of %d MB: %v (receipt %s), printed %q; pool: %v; want E301, "+
				"nothing run", mb, err, code, res.Stdout, perr)
		}
	}
}
