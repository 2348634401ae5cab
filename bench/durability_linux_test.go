package bench

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	lib "github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// BenchmarkDurability: what each receipt.Durability costs a run, beside
// the floor a flushed receipt cannot go under, in each iteration: 200
// appends of a receipt's size to a file in the receipts directory's file
// system, each followed by fdatasync (fsync-µs/op); 200 in-process runs of
// examples/hello.vel with each durability (inproc-D-µs/run); and 200
// runs through a pool of two workers with each, from two callers
// (pool-D-runs/s). inproc-flush/fsync is what a flushed in-process run
// costs over one flush alone.
func BenchmarkDurability(b *testing.B) {
	const perIteration, callers = 200, 2
	prog, rc := hello(b)
	root := filepath.Dir(prog)
	src, err := os.ReadFile(prog)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "floor"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	record := make([]byte, 2048) // about a hello's receipt
	pools := map[receipt.Durability]*lib.Pool{}
	for _, d := range receipt.Durabilities {
		p, err := lib.NewPool(lib.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 2,
			ImportRoot: root, Receipts: rc, Timeout: time.Minute, Durability: d})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		pools[d] = p
	}
	ctx := context.Background()
	inproc := map[receipt.Durability]time.Duration{}
	pooled := map[receipt.Durability]time.Duration{}
	var floor time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		for range perIteration {
			if _, err := f.Write(record); err != nil {
				b.Fatal(err)
			}
			if err := syscall.Fdatasync(int(f.Fd())); err != nil {
				b.Fatal(err)
			}
		}
		floor += time.Since(t0)
		for _, d := range receipt.Durabilities {
			t0 := time.Now()
			for range perIteration {
				res, err := lib.Run(ctx, lib.Source(prog, src), lib.Options{Budget: budget.MustParse(root, "io"),
					Cwd: root, Receipts: rc, InProcess: true, Durability: d})
				if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
					b.Fatal(err, res.Receipt.Outcome)
				}
			}
			inproc[d] += time.Since(t0)

			t0 = time.Now()
			var wg sync.WaitGroup
			for c := range callers {
				wg.Go(func() {
					for i := c; i < perIteration; i += callers {
						res, err := pools[d].Run(ctx, lib.File("hello.vel"), lib.RunOptions{})
						if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			pooled[d] += time.Since(t0)
		}
	}
	b.StopTimer()
	n := float64(b.N * perIteration)
	b.ReportMetric(float64(floor.Microseconds())/n, "fsync-µs/op")
	for _, d := range receipt.Durabilities {
		b.ReportMetric(float64(inproc[d].Microseconds())/n, "inproc-"+string(d)+"-µs/run")
		b.ReportMetric(n/pooled[d].Seconds(), "pool-"+string(d)+"-runs/s")
	}
	b.ReportMetric(inproc[receipt.Flush].Seconds()/floor.Seconds(), "inproc-flush/fsync")
}
