package run

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestPoolCloseAfterAReceiptIsReserved: a run whose receipt is in the
// journal (reserved, unfinished) when Close is called is one Close waits
// for: it runs to its end, ok, and Close returns after it. Before, a run
// was taken only after its receipt was reserved, and a Close in between
// refused it ("the pool is closed: the run was not started"), its
// receipt ending crashed: TestPoolCloseDrains, which closes once every
// run's receipt is listed, failed so under load. Close here is called
// from the hook the pool calls once the receipt is reserved, and the run
// goes on once the pool is closed to new runs. The control: a run sent
// after Close is refused, and runs nothing.
func TestPoolCloseAfterAReceiptIsReserved(t *testing.T) {
	p, rc := helloPool(t)
	closed := make(chan error, 1)
	p.reserved = func() {
		p.reserved = nil
		go func() { closed <- p.Close() }()
		for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(time.Millisecond) {
			p.mu.Lock()
			c := p.closed
			p.mu.Unlock()
			if c {
				return
			}
			if time.Now().After(deadline) {
				t.Error("Close did not mark the pool closed")
				return
			}
		}
	}
	res, err := p.Run(context.Background(), PoolRun{Program: "hello.vel"})
	if err != nil || string(res.Stdout) != "hello\n" || res.Receipt.Outcome.Status != receipt.StatusOK {
		t.Errorf("the run whose receipt was reserved before Close: %v, output %q, status %s; "+
			"want hello, ok", err, res.Stdout, res.Receipt.Outcome.Status)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	// The control: a run sent after Close is refused, and runs nothing.
	if res, err := p.Run(context.Background(), PoolRun{Program: "hello.vel"}); err == nil ||
		len(res.Stdout) != 0 {
		t.Errorf("a run after Close: %v, output %q; want refused, nothing run", err, res.Stdout)
	}
	stored, err := receipt.List(rc)
	if err != nil {
		t.Fatal(err)
	}
	var ok int
	for _, r := range stored {
		if r.Outcome.Status == receipt.StatusOK {
			ok++
		}
	}
	if ok != 1 {
		t.Errorf("%d receipts ok of %d, want the one run's", ok, len(stored))
	}
}

// helloPool starts a pool of one unconfined worker whose import root
// holds hello.vel, keeping its receipts in rc, a directory of the
// test's; the test closes it (Close may be called again).
func helloPool(t *testing.T) (p *Pool, rc string) {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "hello.vel"), "print(\"hello\")\n")
	rc = t.TempDir()
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io"), Workers: 1,
		Confine: core.ModeOff, ImportRoot: dir, Receipts: rc})
	if err != nil {
		t.Fatalf("StartPool: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, rc
}
