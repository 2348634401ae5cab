// Package fleet holds a fleet of sabline serve replicas to its promises on
// this machine, over loopback only: three replicas with their own replica
// ids and receipts directories, one S3-compatible bucket in this process,
// a proxy that sends each token to one replica; runs at concurrency 16,
// one replica killed with SIGKILL midway and started again.
//
// The bucket of the fleet is a test double; a real S3-compatible server,
// s3rver 3.7.1 (pinned by testdata/npm, installed with npm ci into a
// cache of the tests' own by internal/testkit/npmpin), holds the store
// agent to its check of the store's create-only promise: s3rver ignores
// If-None-Match on PUT, and a replica given it stops at start naming the
// store and what to use instead, where the double passes the same check
// (TestStoreCreateOnlyRefusesS3rver); a replica started while s3rver is
// stopped (SIGSTOP) serves from its journal, and when s3rver answers
// again (SIGCONT) refuses it at its first write, ships nothing and says
// why in /readyz (TestStoreStoppedS3rver). Without node and npm these
// two are skipped, saying why; under SABLINE_REQUIRE_NPM=1 they fail.
package fleet

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/internal/testkit/fleettest"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/ship"
)

func TestMain(m *testing.M) {
	code := testkit.RunApart(m) // the binaries it runs join a register of its own
	buildbin.Cleanup()
	os.Exit(code)
}

// tenants: three without limits of their own, and one held to 4 runs a
// second with a burst of 3, whose refusals are the only 429s expected.
var tenants = []fleettest.Tenant{
	{Name: "acme", Token: "acme-token-0123456789abcdef0123456789"},
	{Name: "beta", Token: "beta-token-0123456789abcdef0123456789"},
	{Name: "gamma", Token: "gamma-token-0123456789abcdef012345678"},
	{Name: "slow", Token: "slow-token-0123456789abcdef0123456789", Rate: 4, Burst: 3},
}

const limited = 3 // the index of slow

// TestFleet: after the runs, and the kill, every 200 answer has exactly
// one receipt in the bucket, no run has two, and each is read through
// every replica with its tenant's token and refused with another's; the
// only 429s are the limited tenant's, each naming its limit with
// Retry-After, and that tenant was given no more runs than its limit
// allows, and some.
func TestFleet(t *testing.T) {
	n := testkit.Size(t, "runs", 300, 2000) // every property is held the same way at both
	f, err := fleettest.Start(fleettest.Options{Replicas: 3, Tenants: tenants, Workers: 1,
		ShipEvery: time.Second, Program: "print(\"hello, world\")\n"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	defer func() {
		if t.Failed() {
			for _, r := range f.Replicas {
				t.Logf("replica %s:\n%s", r.ID, r.Log())
			}
		}
	}()

	// The replica killed is acme's: its runs move to the next replica
	// while it is down, and come back when it is up again.
	// What the bucket holds the moment it is killed is noted: the receipts
	// of its runs that are not there were on its disk alone, and must be
	// shipped when it starts again.
	victim := f.Home(tenants[0])
	b, err := f.Bucket()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var restarted sync.WaitGroup
	var restartErr error
	atKill := map[string]bool{}
	var killed time.Time
	var restartTook time.Duration
	start := time.Now()
	answers := f.Load(n, 16, func(i int) {
		if i == n/2 {
			restarted.Add(1)
			go func() {
				defer restarted.Done()
				killed = time.Now()
				f.Kill(victim)
				runs, _, err := ship.NewReader(b).All(context.Background(), ship.AnyTenant)
				if err != nil {
					restartErr = err
					return
				}
				for _, r := range runs {
					atKill[r.RunID] = true
				}
				restartErr = f.Restart(victim)
				restartTook = time.Since(killed)
			}()
		}
	}, nil)
	elapsed := time.Since(start)
	restarted.Wait()
	if restartErr != nil {
		t.Fatalf("replica %s started again: %v", f.Replicas[victim].ID, restartErr)
	}

	ok := map[string]int{} // run id -> tenant, of each 200
	count := map[int]map[int]int{}
	for _, a := range answers {
		if count[a.Tenant] == nil {
			count[a.Tenant] = map[int]int{}
		}
		count[a.Tenant][a.Status]++
		switch a.Status {
		case 200:
			if _, dup := ok[a.RunID]; dup || a.RunID == "" {
				t.Errorf("run id %q answered 200 twice, or none", a.RunID)
			}
			ok[a.RunID] = a.Tenant
		case 429:
			if a.Tenant != limited {
				t.Errorf("tenant %s, which has no limit of its own, answered 429 %s: %s", tenants[a.Tenant].Name, a.Code, a.Message)
			} else if ra, err := strconv.Atoi(a.RetryAfter); a.Code != "rate-limit" || err != nil || ra < 1 {
				t.Errorf("tenant slow's 429: code %q, Retry-After %q, want rate-limit and whole seconds", a.Code, a.RetryAfter)
			}
		}
	}
	for ti, byStatus := range count {
		t.Logf("tenant %s: %v", tenants[ti].Name, byStatus)
	}
	t.Logf("%d runs in %v at concurrency 16, replica %s killed at run %d and ready again %v later; %d answered 200",
		n, elapsed.Round(time.Millisecond), f.Replicas[victim].ID, n/2, restartTook.Round(time.Millisecond), len(ok))
	// A tenant's limiter is per replica, and the proxy keeps a token on one
	// replica while it is up: slow's runs are at most its burst on each
	// replica it reached (three at most) plus its rate over the time.
	slowOK := count[limited][200]
	bound := 3*tenants[limited].Burst + int(math.Ceil(tenants[limited].Rate*elapsed.Seconds())) + 1
	if slowOK > bound || slowOK == 0 {
		t.Errorf("tenant slow was given %d runs in %v: want 1 to %d (burst %d per replica, %g a second)",
			slowOK, elapsed, bound, tenants[limited].Burst, tenants[limited].Rate)
	}
	if count[limited][429] == 0 {
		t.Errorf("tenant slow was never refused past its limit: %v", count[limited])
	}
	if len(ok) < n/2 {
		t.Fatalf("only %d of %d runs answered 200", len(ok), n)
	}

	// Every 200's receipt reaches the bucket, once.
	reader := ship.NewReader(b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var runs []receipt.StoredReceipt
	for {
		runs, _, err = reader.All(ctx, ship.AnyTenant)
		if err != nil {
			t.Fatal(err)
		}
		if missing(ok, runs) == 0 || ctx.Err() != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	times := map[string]int{}
	victimPrefix := ship.Prefix + f.Replicas[victim].ID + "/"
	late := 0 // the killed replica's 200s not in the bucket when it was killed
	for _, r := range runs {
		if _, isOK := ok[r.RunID]; isOK && !atKill[r.RunID] && strings.HasPrefix(r.Path, victimPrefix) && r.Timings.Started.Before(killed) {
			late++
		}
		times[r.RunID]++
		if times[r.RunID] == 2 {
			t.Errorf("run %s is in the bucket twice", r.RunID)
		}
		if ti, isOK := ok[r.RunID]; isOK && (r.Tenant != tenants[ti].Name || r.Outcome.Status != receipt.StatusOK) {
			t.Errorf("run %s in the bucket: tenant %q, status %q; want %s, ok", r.RunID, r.Tenant, r.Outcome.Status, tenants[ti].Name)
		}
	}
	if m := missing(ok, runs); m != 0 {
		t.Fatalf("%d of the %d runs answered 200 have no receipt in the bucket", m, len(ok))
	}
	if late == 0 {
		t.Errorf("no run that replica %s answered before it was killed was left to ship after it started again: the kill proved nothing", f.Replicas[victim].ID)
	}
	t.Logf("replica %s had answered %d runs whose receipts were on its disk alone when it was killed: all shipped once it started again", f.Replicas[victim].ID, late)
	t.Logf("the bucket holds %d receipts: the %d runs answered 200, and %d others (runs cut short by the kill, each once)",
		len(runs), len(ok), len(runs)-len(ok))

	// Each is read through every replica, with its tenant's token, and
	// refused with another tenant's.
	for id, ti := range ok {
		for i := range f.Replicas {
			st, got, err := f.Receipt(i, ti, id)
			if err != nil || st != 200 || got != id {
				t.Errorf("replica %s, run %s with tenant %s's token: %d %q %v", f.Replicas[i].ID, id, tenants[ti].Name, st, got, err)
			}
		}
	}
	checked := 0
	for id, ti := range ok {
		if checked == 30 {
			break
		}
		checked++
		other := (ti + 1) % len(tenants)
		for i := range f.Replicas {
			if st, _, err := f.Receipt(i, other, id); st != 404 || err != nil {
				t.Errorf("replica %s, %s's run %s with %s's token: %d %v, want 404", f.Replicas[i].ID, tenants[ti].Name, id, tenants[other].Name, st, err)
			}
		}
	}
}

// missing is how many of the runs in ok have no receipt in runs.
func missing(ok map[string]int, runs []receipt.StoredReceipt) int {
	in := map[string]bool{}
	for _, r := range runs {
		in[r.RunID] = true
	}
	n := 0
	for id := range ok {
		if !in[id] {
			n++
		}
	}
	return n
}
