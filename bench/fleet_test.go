//go:build unix

package bench

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit/fleettest"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/ship"
)

// fleetRuns bounds the runs one BenchmarkFleet variant sends, whatever
// b.N is; fleetClients send them at once.
const (
	fleetRuns    = 2000
	fleetClients = 16
)

// BenchmarkFleet sends hello.vel through the proxy of a fleet of one, two
// and three sabline serve replicas (one worker each, receipts shipped to
// an S3-compatible bucket in this process every second), from 16 clients
// over three tenants: runs/s (runs answered 200; any other answer fails
// the benchmark), the 99th percentile of a request, ns/op the wall time
// over the runs sent (at most fleetRuns whatever b.N is), the processor
// time per run of the replicas (their serve processes, workers
// and store agents) and of this process (the clients, the proxy and the
// bucket), and the shipping lag: for runs sampled during the load, the
// time from the 200 answer to the receipt being found in the bucket. On
// a machine of two cores the replicas share them: runs/s does not add
// up, and the processor time per run is the figure to compare. The
// replicas keep receipts with --durability background, as every build
// before the setting kept them.
func BenchmarkFleet(b *testing.B) {
	tenants := []fleettest.Tenant{
		{Name: "acme", Token: "acme-token-0123456789abcdef0123456789"},
		{Name: "beta", Token: "beta-token-0123456789abcdef0123456789"},
		{Name: "gamma", Token: "gamma-token-0123456789abcdef012345678"},
	}
	for _, replicas := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("replicas-%d", replicas), func(b *testing.B) {
			f, err := fleettest.Start(fleettest.Options{Replicas: replicas, Tenants: tenants, Workers: 1,
				ShipEvery: time.Second, Program: "print(\"hello, world\")\n",
				Extra: []string{"--durability", "background"}})
			if err != nil {
				b.Fatal(err)
			}
			defer f.Stop()
			bucket, err := f.Bucket()
			if err != nil {
				b.Fatal(err)
			}
			defer bucket.Close()
			n := min(fleetRuns, max(b.N, fleetClients))
			lags := sampleLag(bucket, func(sample func(fleettest.Answer)) []fleettest.Answer {
				cpu0, _ := f.CPU()
				self0 := selfCPU()
				b.ResetTimer()
				t0 := time.Now()
				answers := f.Load(n, fleetClients, nil, sample)
				wall := time.Since(t0)
				b.StopTimer()
				cpu1, ok := f.CPU()
				report(b, answers, wall)
				if ok {
					b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(n), "replica-cpu-µs/run")
				}
				b.ReportMetric(float64((selfCPU()-self0).Microseconds())/float64(n), "bench-cpu-µs/run")
				return answers
			})
			if len(lags) > 0 {
				sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
				b.ReportMetric(float64(lags[len(lags)/2].Milliseconds()), "ship-lag-p50-ms")
				b.ReportMetric(float64(lags[len(lags)-1].Milliseconds()), "ship-lag-max-ms")
			}
		})
	}
}

// report reports what the answers to the runs sent got: runs/s, the runs
// answered 200 a second; the p99 of their times; failures, the answers
// that were not a 200, which fail the benchmark (none allowed, as in
// BenchmarkServeHello: a refusal is no run, and quicker than one); and
// ns/op, the wall time over the runs sent, not over b.N (at most
// fleetRuns are sent, and at least fleetClients, whatever b.N is).
func report(b *testing.B, answers []fleettest.Answer, wall time.Duration) {
	var lat []time.Duration
	var failed []fleettest.Answer
	for _, a := range answers {
		if a.Status != 200 {
			failed = append(failed, a)
			continue
		}
		lat = append(lat, a.Done.Sub(a.Sent))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(wall.Nanoseconds())/float64(len(answers)), "ns/op")
	b.ReportMetric(float64(len(lat))/wall.Seconds(), "runs/s")
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
	b.ReportMetric(float64(len(failed)), "failures")
	if len(failed) > 0 {
		b.Errorf("%d of %d runs were not answered 200 (the first: %d %s %s): want none",
			len(failed), len(answers), failed[0].Status, failed[0].Code, failed[0].Message)
	}
}

// sampleLag runs load, handing it a function that samples its 200
// answers, about ten a second; every 50 ms it lists the shipped objects
// (ship.Prefix), and when one is new it looks for the receipts of the
// samples not found yet (and every second in any case); it returns each
// sample's lag: from its answer to
// the listing that found it. A replica ships its journal in the order it
// was written, so the samples of one process (the run id's origin) are
// looked for oldest first, and the look stops at the first not found.
// So the lag is measured to a tick, and the bucket is sent one listing a
// tick and a lookup or two a replica a shipping, as earlier builds'
// measure sent it (one listing a tick, each new object's index read
// once): on two cores, what the measure costs is taken from the replicas
// it measures.
func sampleLag(b bucket.Bucket, load func(func(fleettest.Answer)) []fleettest.Answer) []time.Duration {
	var mu sync.Mutex
	var last time.Time
	var waiting []fleettest.Answer
	loaded := false
	sample := func(a fleettest.Answer) {
		mu.Lock()
		defer mu.Unlock()
		if a.Status == 200 && a.Done.Sub(last) >= 100*time.Millisecond {
			last = a.Done
			waiting = append(waiting, a)
		}
	}
	var lags []time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := ship.NewReader(b)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		shipped := 0 // objects in the last listing
		for n := 1; ; n++ {
			<-tick.C
			mu.Lock()
			todo, over := waiting, loaded
			waiting = nil
			mu.Unlock()
			if (over && len(todo) == 0) || ctx.Err() != nil {
				return
			}
			keys, err := b.List(ctx, ship.Prefix)
			// Every second the samples are looked for in any case: one
			// whose object was listed before it was sampled.
			if err != nil || (len(keys) == shipped && n%20 != 0) {
				mu.Lock()
				waiting = append(todo, waiting...)
				mu.Unlock()
				continue
			}
			shipped = len(keys)
			now := time.Now()
			behind := map[string]bool{} // origins whose oldest waiting sample is not shipped
			var kept []fleettest.Answer
			for _, a := range todo {
				origin, _, _ := receipt.RunIDOrigin(a.RunID)
				if !behind[origin] {
					if _, err := r.Find(ctx, ship.AnyTenant, a.RunID); err == nil {
						lags = append(lags, now.Sub(a.Done))
						continue
					}
					behind[origin] = true
				}
				kept = append(kept, a)
			}
			mu.Lock()
			waiting = append(kept, waiting...)
			mu.Unlock()
		}
	}()
	load(sample)
	mu.Lock()
	loaded = true
	mu.Unlock()
	<-done
	return lags
}

// selfCPU is this process's processor time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
