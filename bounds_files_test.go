package sabline_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// budgetOf is a budget of n items whose canonical text is size bytes:
// io, then net grants of hosts named to make up the size.
func budgetOf(t *testing.T, n, size int) budget.Budget {
	t.Helper()
	items := []string{"io"}
	for i := range n - 1 {
		items = append(items, fmt.Sprintf("net:h%04d.io", i))
	}
	for i, pad := 1, size-len(strings.Join(items, ",")); pad > 0; i++ {
		add := min(pad, 50) // a label of at most 63 bytes
		items[i] = strings.Replace(items[i], ".io", strings.Repeat("a", add)+".io", 1)
		pad -= add
	}
	b := budget.Budget{}
	for _, s := range items {
		it, err := budget.ParseItem(s, "/")
		if err != nil {
			t.Fatal(err)
		}
		b.Items = append(b.Items, it)
	}
	b = b.With() // canonical
	if len(b.Items) != n || len(b.String()) != size {
		t.Fatalf("a budget of %d items and %d bytes, want %d and %d", len(b.Items),
			len(b.String()), n, size)
	}
	return b
}

// TestRunFilesAndBudgetBounds: a program of program.MaxFiles files whose
// paths come to program.MaxPathBytes, under a budget of budget.MaxItems
// items of budget.MaxBytes, runs to its end in a worker and in a pool,
// its receipt on disk ok (the control: its worker's record, which names
// every file and every item, fits what the supervisor reads of it). A
// file more is E306 at its load, and an item more E301 before anything
// runs, each with its receipt. Before, a file more ran and then ended
// E310 ("4097 files, more than 4096", at that bound), as an item more
// did ("5001 effects, more than 4096"): the run's record was refused
// after it ran.
func TestRunFilesAndBudgetBounds(t *testing.T) {
	dir := t.TempDir()
	receipts := filepath.Join(t.TempDir(), "receipts")
	src := testkit.Loads(t, dir, program.MaxFiles, program.MaxPathBytes) +
		fmt.Sprintf("print(%d)\n", program.MaxFiles)
	prog := sabline.Source(filepath.Join(dir, "main.vel"), []byte(src))
	b := budgetOf(t, budget.MaxItems, budget.MaxBytes)
	opts := sabline.Options{Budget: b, Cwd: dir, Timeout: testkit.Bound(2 * time.Minute),
		Receipts: receipts}
	pool, err := sabline.NewPool(sabline.PoolOptions{Budget: b, ImportRoot: dir, Workers: 1,
		Timeout: opts.Timeout, Receipts: receipts})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	outcome := func(what string, res *sabline.Result) receipt.Outcome {
		t.Helper()
		if res == nil {
			t.Fatalf("%s: no result", what)
		}
		rec, err := receipt.FindRun(receipts, res.Receipt.RunID)
		if err != nil {
			t.Fatalf("%s: its receipt: %v", what, err)
		}
		return rec.Outcome
	}
	inWorker, err := sabline.Run(context.Background(), prog, opts)
	inPool, perr := pool.Run(context.Background(), prog, sabline.RunOptions{})
	for where, r := range map[string]*sabline.Result{"in a worker": inWorker, "in a pool": inPool} {
		o := outcome("at the bounds, "+where, r)
		if o.Status != receipt.StatusOK || strings.TrimSpace(string(r.Stdout)) !=
			fmt.Sprint(program.MaxFiles) {
			t.Errorf("at the bounds, %s: %s %s %q (%v, %v), printed %q; want it run", where,
				o.Status, o.Code, o.Message, err, perr, r.Stdout)
		}
	}

	// A file more.
	more := t.TempDir()
	src = testkit.Loads(t, more, program.MaxFiles+1, program.MaxPathBytes) +
		fmt.Sprintf("print(%d)\n", program.MaxFiles+1)
	prog = sabline.Source(filepath.Join(more, "main.vel"), []byte(src))
	opts.Cwd = more
	res, _ := sabline.Run(context.Background(), prog, opts)
	if o := outcome("a file more", res); o.Code != codes.E306 ||
		!strings.Contains(o.Message, "at most") || len(res.Stdout) != 0 {
		t.Errorf("a file more: %s %s %q, printed %q; want E306 naming the bound, nothing run",
			o.Status, o.Code, o.Message, res.Stdout)
	}

	// An item more.
	opts.Cwd = dir
	opts.Budget = b.With(budget.Item{Kind: budget.Net, Host: "one.more.io"})
	res, err = sabline.Run(context.Background(), sabline.Source(filepath.Join(dir, "p.vel"),
		[]byte("print(1)\n")), opts)
	if o := outcome("an item more", res); codes.CodeOf(err) != codes.E301 ||
		o.Code != codes.E301 || len(res.Stdout) != 0 {
		t.Errorf("an item more: %v (receipt %s %s %q), printed %q; want E301, nothing run", err,
			o.Status, o.Code, o.Message, res.Stdout)
	}
}
