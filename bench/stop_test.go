package bench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	lib "github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// stopBound is how long TestStopBound lets a pooled run take to return
// once cancelled: the worker answers at once, or is killed after
// stopGrace (500ms); the rest is the receipt, here on a loaded machine.
// Before, the pool waited up to 2s more for the stopped worker to exit.
const stopBound = time.Second

// stopPool is a pool of two workers that may write in a directory of its
// own, where a run's program says, in the file ready, that it is running.
func stopPool(tb testing.TB, timeout time.Duration) (pool *lib.Pool, ready string) {
	tb.Helper()
	dir := tb.TempDir()
	ready = filepath.Join(dir, "ready")
	pool, err := lib.NewPool(lib.PoolOptions{Budget: budget.MustParse(dir, "io", "fs:write:"+dir),
		Workers: 2, ImportRoot: dir, Receipts: tb.TempDir(), Timeout: timeout})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pool.Close() })
	return pool, ready
}

// spinning is a program that says it runs, in the file ready, then loops
// until it is stopped, on its lines 2 and 3.
func spinning(ready string) lib.Program {
	return lib.Source("spin.vel", []byte("fs.write(\""+ready+"\", \"go\")\n"+
		"for i in range(1 << 40):\n    x = i\n"))
}

// stopOnce runs the spinning program in pool and cancels it once it says
// it runs; it returns how long the run took to return after the cancel,
// and its receipt.
func stopOnce(tb testing.TB, pool *lib.Pool, ready string) (time.Duration, *receipt.Receipt) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	os.Remove(ready)
	ran := make(chan struct{})
	go func() {
		// The file is looked for every millisecond until it is there
		// or the run has ended.
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := os.Stat(ready); err == nil {
				cancelled <- time.Now()
				cancel()
				return
			}
			select {
			case <-ran:
				return
			case <-tick.C:
			}
		}
	}()
	res, err := pool.Run(ctx, spinning(ready), lib.RunOptions{})
	returned := time.Now()
	close(ran)
	if err != nil {
		tb.Fatal(err)
	}
	select {
	case at := <-cancelled:
		return returned.Sub(at), res.Receipt
	default:
		tb.Fatalf("the run ended before it was cancelled: %+v", res.Receipt.Outcome)
		return 0, nil
	}
}

// BenchmarkStop: a pooled run cancelled once its program says it runs
// (it writes a file, looked for every millisecond), then looping; each iteration times, from the
// cancel to the run's return, one cancelled run, and one run past the
// pool's timeout (from the call, less the timeout). Reported: the p50 and
// p99 of each (cancel-p50-ms, cancel-p99-ms, timeout-p50-ms,
// timeout-p99-ms) and the receipts' mean wall_ms of the cancelled runs.
// The p99s are reported from 100 iterations or more (-benchtime 100x,
// some 30 s): the default second makes some five, whose p99 would be
// their slowest.
func BenchmarkStop(b *testing.B) {
	const timeout = 200 * time.Millisecond
	pool, ready := stopPool(b, time.Minute)
	tpool, _ := stopPool(b, timeout)
	spin := lib.Source("spin.vel", []byte("for i in range(1 << 40):\n    x = i\n"))
	var cancels, timeouts []time.Duration
	var wall float64
	for b.Loop() {
		took, rec := stopOnce(b, pool, ready)
		cancels = append(cancels, took)
		wall += rec.Timings.WallMS
		start := time.Now()
		res, err := tpool.Run(context.Background(), spin, lib.RunOptions{})
		if err != nil || res.Receipt.Outcome.Code != codes.E307 {
			b.Fatalf("a run past its timeout: %v, %+v", err, res.Receipt.Outcome)
		}
		timeouts = append(timeouts, time.Since(start)-timeout)
	}
	percentiles(b, "cancel", cancels)
	percentiles(b, "timeout", timeouts)
	b.ReportMetric(wall/float64(len(cancels)), "cancel-wall-ms")
}

// minP99Samples is the fewest times of which percentiles reports a p99:
// of fewer, the 99th percentile is the slowest of them.
const minP99Samples = 100

// percentiles reports the median of the times d (NAME-p50-ms) and, when
// there are minP99Samples of them or more, their 99th percentile
// (NAME-p99-ms); of fewer it says in the log that it reports none.
func percentiles(b *testing.B, name string, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, name+"-p50-ms")
	if len(d) < minP99Samples {
		b.Logf("%s: no p99 of %d times (the slowest of them); -benchtime %dx gives one",
			name, len(d), minP99Samples)
		return
	}
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, name+"-p99-ms")
}

// TestStopBound: a pooled run cancelled once its program says it runs
// returns within stopBound of the cancel, every time of ten, E307 where
// it was (atLoop), its receipt already stored.
func TestStopBound(t *testing.T) {
	pool, ready := stopPool(t, time.Minute)
	for range 10 {
		took, rec := stopOnce(t, pool, ready)
		o := rec.Outcome
		if o.Code != codes.E307 || !atLoop(o.Position) {
			t.Errorf("outcome %s at %q (%s), want E307 at the loop, line 2 or 3", o.Code, o.Position,
				o.Message)
		}
		if took > stopBound {
			t.Errorf("the run returned %v after its cancel, want at most %v", took, stopBound)
		}
		if path, err := rec.Stored(); path == "" || err != nil {
			t.Errorf("its receipt is not stored: %q, %v", path, err)
		}
		t.Logf("returned %v after its cancel, at %s", took.Round(time.Millisecond), o.Position)
	}
}

// atLoop says whether pos is where spin.vel can have been stopped once
// its file was there: its loop, line 2 or 3, or the write it was
// returning from (1:9). Never 1:1, where it was not.
func atLoop(pos string) bool {
	_, at, ok := strings.Cut(filepath.Base(pos), "spin.vel:")
	return ok && (strings.HasPrefix(at, "2:") || strings.HasPrefix(at, "3:") || at == "1:9")
}
