package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	lib "github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// BenchmarkLibrary: one run of examples/hello.vel by the command line
// (two process starts, a synced receipt file), beside the same program
// through a pool of two confined workers (two callers at once) and run
// in this process by lib.Run, each of those with its receipt kept in
// the receipts journal. Each iteration times one command-line run,
// perIteration pooled runs and perIteration in-process runs; the figures
// are per run.
func BenchmarkLibrary(b *testing.B) {
	const perIteration, callers = 200, 2
	prog, rc := hello(b)
	root := filepath.Dir(prog)
	bin := sabline(b)
	pool, err := lib.NewPool(lib.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 2, ImportRoot: root, Receipts: rc, Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	src, err := os.ReadFile(prog)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var cli, pooled, inproc time.Duration
	var lat []time.Duration
	var mu sync.Mutex
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := exec.Command(bin, "--receipts", rc, "--allow", "io", prog).Run(); err != nil {
			b.Fatal(err)
		}
		cli += time.Since(t0)

		t0 = time.Now()
		var wg sync.WaitGroup
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := c; i < perIteration; i += callers {
					r0 := time.Now()
					res, err := pool.Run(ctx, lib.File("hello.vel"), lib.RunOptions{})
					d := time.Since(r0)
					if err != nil {
						b.Error(err)
						return
					}
					if o := res.Receipt.Outcome; o.Status != receipt.StatusOK {
						b.Error(o)
						return
					}
					mu.Lock()
					lat = append(lat, d)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		pooled += time.Since(t0)

		t0 = time.Now()
		for range perIteration {
			res, err := lib.Run(ctx, lib.Source(prog, src), lib.Options{Budget: budget.MustParse(root, "io"), Cwd: root, Receipts: rc})
			if err != nil {
				b.Fatal(err)
			}
			if o := res.Receipt.Outcome; o.Status != receipt.StatusOK {
				b.Fatal(o)
			}
		}
		inproc += time.Since(t0)
	}
	b.StopTimer()
	if err := pool.Close(); err != nil {
		b.Fatal(err)
	}
	runs, err := receipt.List(rc)
	if want := b.N * (1 + 2*perIteration); err != nil || len(runs) < want {
		b.Fatalf("%d receipts kept (%v), want every run's, %d", len(runs), err, want)
	}
	slices.Sort(lat)
	n := float64(b.N * perIteration)
	b.ReportMetric(float64(cli.Microseconds())/float64(b.N), "cli-µs/run")
	b.ReportMetric(n/pooled.Seconds(), "pool-runs/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "pool-p99-ms")
	b.ReportMetric(float64(inproc.Microseconds())/n, "inproc-µs/run")
	b.ReportMetric(float64(cli)/float64(b.N)/(float64(pooled)/n), "cli/pool")
}

// BenchmarkPoolConditions: the runs per second of a pool of two workers
// running examples/hello.vel under the conditions a host may differ in,
// side by side in each iteration (200 runs each) so that the ratios are
// taken under the same machine load: two callers at once (as
// BenchmarkLibrary), one caller running one program after another, and
// two callers on a pool whose workers have a memory limit.
func BenchmarkPoolConditions(b *testing.B) {
	const perIteration = 200
	prog, rc := hello(b)
	root := filepath.Dir(prog)
	newPool := func(memoryMB int) *lib.Pool {
		p, err := lib.NewPool(lib.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 2, ImportRoot: root, Receipts: rc,
			Timeout: time.Minute, MaxMemoryMB: memoryMB})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		return p
	}
	plain, limited := newPool(0), newPool(256)
	conditions := []struct {
		name    string
		pool    *lib.Pool
		callers int
	}{
		{"two-callers", plain, 2},
		{"one-caller", plain, 1},
		{"two-callers-memory-limit", limited, 2},
	}
	took := make([]time.Duration, len(conditions))
	b.ResetTimer()
	for range b.N {
		for i, c := range conditions {
			t0 := time.Now()
			var wg sync.WaitGroup
			for k := range c.callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for j := k; j < perIteration; j += c.callers {
						res, err := c.pool.Run(context.Background(), lib.File("hello.vel"), lib.RunOptions{})
						if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
							b.Error(err, res.Receipt.Outcome)
							return
						}
					}
				}()
			}
			wg.Wait()
			took[i] += time.Since(t0)
		}
	}
	b.StopTimer()
	n := float64(b.N * perIteration)
	for i, c := range conditions {
		b.ReportMetric(n/took[i].Seconds(), c.name+"-runs/s")
		if i > 0 {
			b.ReportMetric(float64(took[0])/float64(took[i]), c.name+"/"+conditions[0].name)
		}
	}
}
