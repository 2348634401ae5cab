package bench

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	lib "github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/receipt"
)

// warm is how many runs, or computations, BenchmarkPoolPause makes right
// before the pause before each one it times.
const warm = 5

// pauses are the waits BenchmarkPoolPause sets before a run: none, the
// gaps of a caller that runs a program every few tens of milliseconds,
// and one of a caller that runs one now and then.
var pauses = []time.Duration{0, 20 * time.Millisecond, 200 * time.Millisecond}

// BenchmarkPoolPause: what a pause before a pooled run costs it. One
// caller, a pool of one worker (receipts kept in the background), runs
// examples/hello.vel right after others, then after each pause in turn,
// every iteration; and this process, after the same pauses, makes a
// receipt's JSON and its digest (the control: work of its own, with no
// other process in it). It reports the median of each after each pause
// (pool-Pms-µs, self-Pms-µs) and each over its time with no pause
// (pool-Pms/0ms, self-Pms/0ms): a run after a pause finds the machine's
// caches and processors cold, and wakes a worker that slept; the control
// shows how much of that is the machine's. Run it with -benchtime Nx:
// each iteration waits some 440 ms.
func BenchmarkPoolPause(b *testing.B) {
	prog, rc := hello(b)
	root := filepath.Dir(prog)
	pool, err := lib.NewPool(lib.PoolOptions{Budget: budget.MustParse(root, "io"), Workers: 1,
		ImportRoot: root, Receipts: rc, Timeout: time.Minute, Durability: receipt.Background})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	run := func() *receipt.Receipt {
		res, err := pool.Run(ctx, lib.File("hello.vel"), lib.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if o := res.Receipt.Outcome; o.Status != receipt.StatusOK {
			b.Fatal(o)
		}
		return res.Receipt
	}
	sample := run()
	self := func() {
		data, err := json.Marshal(sample)
		if err != nil {
			b.Fatal(err)
		}
		sha256.Sum256(data)
	}
	for range 20 { // the worker's first runs, and this process's first encodings
		run()
		self()
	}
	pooled := make([][]time.Duration, len(pauses))
	own := make([][]time.Duration, len(pauses))
	timed := func(f func()) time.Duration {
		t0 := time.Now()
		f()
		return time.Since(t0)
	}
	b.ResetTimer()
	for range b.N {
		for i, p := range pauses {
			// Each timed one follows untimed ones by the pause alone.
			for range warm {
				run()
			}
			time.Sleep(p)
			pooled[i] = append(pooled[i], timed(func() { run() }))
			for range warm {
				self()
			}
			time.Sleep(p)
			own[i] = append(own[i], timed(self))
		}
	}
	b.StopTimer()
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Nanoseconds()) / 1e3
	}
	for i, p := range pauses {
		name := strconv.FormatInt(p.Milliseconds(), 10) + "ms"
		pm, sm := median(pooled[i]), median(own[i])
		b.ReportMetric(pm, "pool-"+name+"-µs")
		b.ReportMetric(sm, "self-"+name+"-µs")
		if i > 0 {
			b.ReportMetric(pm/median(pooled[0]), "pool-"+name+"/0ms")
			b.ReportMetric(sm/median(own[0]), "self-"+name+"/0ms")
		}
	}
}
