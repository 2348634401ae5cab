package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	lib "github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// BenchmarkLibrary: one run of examples/hello.vel by the command line
// (two process starts, a synced receipt file), beside the same program
// run by lib.Run as a caller gets it by default (a confined worker of its
// own, its receipt a file), through a pool of two confined workers (two
// callers at once) and run in this process by lib.Run with InProcess,
// those two with their receipts kept in the receipts journal. Each
// iteration times one command-line run, perIteration/10 default runs,
// perIteration pooled runs and perIteration in-process runs; the
// figures are per run, and the ratios set the default run beside the
// other two.
func BenchmarkLibrary(b *testing.B) { library(b, 0) }

// BenchmarkLibraryMemoryLimit: the same command-line and pooled runs
// with a memory limit (the doors' default, 256 MB), which the in-process
// run does not take (a run with one is given a worker). After the timed
// runs, the pool's two workers are left idle for idleFor, and the clock
// ticks of CPU they used meanwhile, read from /proc, are reported:
// idle-ticks, both workers together.
func BenchmarkLibraryMemoryLimit(b *testing.B) { library(b, 256) }

// defaultEvery: BenchmarkLibrary makes one default run (a worker each)
// for every defaultEvery pooled and in-process runs.
const defaultEvery = 10

// idleFor is how long BenchmarkLibraryMemoryLimit leaves its pool idle.
const idleFor = 2 * time.Second

func library(b *testing.B, memoryMB int) {
	const perIteration, callers = 200, 2
	prog, rc := hello(b)
	root := filepath.Dir(prog)
	bin := sabline(b)
	// Receipts are kept as every build before the durability setting kept
	// them (receipt.Background); BenchmarkDurability sets each setting
	// beside the others.
	pool, err := lib.NewPool(lib.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 2, ImportRoot: root, Receipts: rc,
		Timeout: time.Minute, MaxMemoryMB: memoryMB, Durability: receipt.Background})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	argv := []string{"--receipts", rc, "--allow", "io", prog}
	if memoryMB > 0 {
		argv = append([]string{"--max-memory-mb", strconv.Itoa(memoryMB)}, argv...)
	}
	src, err := os.ReadFile(prog)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var cli, pooled, inproc, confined time.Duration
	var lat []time.Duration
	var mu sync.Mutex
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := exec.Command(bin, argv...).Run(); err != nil {
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

		if memoryMB > 0 {
			continue
		}
		t0 = time.Now()
		for range perIteration / defaultEvery {
			res, err := lib.Run(ctx, lib.Source(prog, src), lib.Options{Budget: budget.MustParse(root, "io"), Cwd: root, Receipts: rc,
				Durability: receipt.Background})
			if err != nil {
				b.Fatal(err)
			}
			if o := res.Receipt.Outcome; o.Status != receipt.StatusOK {
				b.Fatal(o)
			}
		}
		confined += time.Since(t0)

		t0 = time.Now()
		for range perIteration {
			res, err := lib.Run(ctx, lib.Source(prog, src), lib.Options{Budget: budget.MustParse(root, "io"), Cwd: root, Receipts: rc, InProcess: true,
				Durability: receipt.Background})
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
	if memoryMB > 0 {
		b.ReportMetric(float64(idleTicks(b, pool.Workers(), idleFor)), "idle-ticks")
	}
	if err := pool.Close(); err != nil {
		b.Fatal(err)
	}
	want := b.N * (1 + 2*perIteration + perIteration/defaultEvery)
	if memoryMB > 0 {
		want = b.N * (1 + perIteration)
	}
	runs, err := receipt.List(rc)
	if err != nil || len(runs) < want {
		b.Fatalf("%d receipts kept (%v), want every run's, %d", len(runs), err, want)
	}
	slices.Sort(lat)
	n := float64(b.N * perIteration)
	b.ReportMetric(float64(cli.Microseconds())/float64(b.N), "cli-µs/run")
	b.ReportMetric(n/pooled.Seconds(), "pool-runs/s")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "pool-p99-ms")
	if memoryMB == 0 {
		nDefault := float64(b.N * (perIteration / defaultEvery))
		b.ReportMetric(float64(inproc.Microseconds())/n, "inproc-µs/run")
		b.ReportMetric(float64(confined.Microseconds())/nDefault, "run-µs/run")
		b.ReportMetric(confined.Seconds()/nDefault/(inproc.Seconds()/n), "run/inproc")
		b.ReportMetric(confined.Seconds()/nDefault/(pooled.Seconds()/n), "run/pool")
	}
	b.ReportMetric(float64(cli)/float64(b.N)/(float64(pooled)/n), "cli/pool")
}

// BenchmarkPoolHello: b.N runs of examples/hello.vel through a pool of
// two confined workers, from two callers at once, every receipt kept in
// the receipts journal, flushed before each reply (flush) or in the
// background as BenchmarkLibrary keeps them (background): one pooled run
// per op, and nothing else, for -cpuprofile, -memprofile (allocs/op is
// the supervisor's per run) and perf record, which follows the workers
// (bench/README.md, "Where a pooled run's time goes"). On Linux,
// workers-cpu-µs/run is the processor time both workers used (user and
// system, read from /proc at clock ticks of 10 ms) over the runs, per
// run; library-cpu-µs/run the same of this process, the pool and its
// callers.
func BenchmarkPoolHello(b *testing.B) {
	for _, d := range []receipt.Durability{receipt.Flush, receipt.Background} {
		b.Run(string(d), func(b *testing.B) { poolHello(b, d) })
	}
}

func poolHello(b *testing.B, d receipt.Durability) {
	prog, rc := hello(b)
	root := filepath.Dir(prog)
	pool, err := lib.NewPool(lib.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 2,
		ImportRoot: root, Receipts: rc, Timeout: time.Minute, Durability: d})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	// Both workers are started before the clock, so that their processor
	// time is all runs.
	var started sync.WaitGroup
	for range 2 {
		started.Go(func() {
			_, err := pool.Run(context.Background(), lib.File("hello.vel"), lib.RunOptions{})
			if err != nil {
				b.Error(err)
			}
		})
	}
	started.Wait()
	workers := slices.Sorted(slices.Values(pool.Workers()))
	workersBefore, workersOK := cpuTicks(workers...)
	libraryBefore, libraryOK := cpuTicks(os.Getpid())
	switchesBefore, switchesOK := switches(workers...)
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for c := range 2 {
		wg.Go(func() {
			for i := c; i < b.N; i += 2 {
				res, err := pool.Run(context.Background(), lib.File("hello.vel"), lib.RunOptions{})
				if err != nil || res.Receipt.Outcome.Status != receipt.StatusOK {
					b.Error(err, res.Receipt.Outcome)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if got := slices.Sorted(slices.Values(pool.Workers())); !slices.Equal(got, workers) {
		b.Fatalf("workers %v after the runs, %v before: the processor time is not all theirs",
			got, workers)
	}
	// Where /proc is there to read.
	if now, ok := cpuTicks(workers...); ok && workersOK {
		b.ReportMetric(float64(now-workersBefore)*1e4/float64(b.N), "workers-cpu-µs/run")
	}
	if now, ok := cpuTicks(os.Getpid()); ok && libraryOK {
		b.ReportMetric(float64(now-libraryBefore)*1e4/float64(b.N), "library-cpu-µs/run")
	}
	if now, ok := switches(workers...); ok && switchesOK {
		b.ReportMetric(float64(now-switchesBefore)/float64(b.N), "workers-switches/run")
	}
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

// idleTicks is the clock ticks of CPU the processes pids use, together,
// over d in which nothing is sent to them.
func idleTicks(b *testing.B, pids []int, d time.Duration) int64 {
	b.Helper()
	before := ticksOf(b, pids)
	time.Sleep(d)
	return ticksOf(b, pids) - before
}

// ticksOf is the clock ticks of CPU (10 ms each) the processes pids have
// used, together (cpuTicks).
func ticksOf(b *testing.B, pids []int) int64 {
	b.Helper()
	n, ok := cpuTicks(pids...)
	if !ok {
		b.Fatalf("the processor time of %v cannot be read here", pids)
	}
	return n
}
