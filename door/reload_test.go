package door

import (
	"sync"
	"testing"

	"github.com/sabline/sabline/tenant"
)

// TestReloadChangesTheRate: a reload that changes a tenant's rate, its
// burst left as it was, holds the tenant to the new rate from then on: a
// rate raised lets the runs through that the old one refused, a rate
// lowered refuses what the old one let through. The control is a reload
// that changes nothing, after which the runs the tenant spent still
// count.
func TestReloadChangesTheRate(t *testing.T) {
	tests := []struct {
		name          string
		rate, newRate float64
		burst         int
		wantBefore    []int // the status of each run before the reload
		wantAfter     []int // ... and after it
	}{
		{name: "the rate raised", rate: 0.01, newRate: fastRate, burst: 1,
			wantBefore: []int{200, 429}, wantAfter: []int{200, 200, 200}},
		{name: "the rate lowered", rate: fastRate, newRate: 0.01, burst: 1,
			wantBefore: []int{200, 200, 200}, wantAfter: []int{200, 429}},
		{name: "nothing changed", rate: 0.01, newRate: 0.01, burst: 1,
			wantBefore: []int{200, 429}, wantAfter: []int{429}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acme := tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Rate: tt.rate, Burst: tt.burst}
			s, ts, _ := tenantServer(t, &fakeRunner{}, acme)
			runs := func(when string, want []int) {
				t.Helper()
				for i, w := range want {
					resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
					if resp.StatusCode != w {
						code, msg := errCode(v)
						t.Errorf("run %d %s: %d %s %q, want %d", i+1, when, resp.StatusCode, code, msg, w)
					}
				}
			}
			runs("before the reload", tt.wantBefore)
			acme.Rate = tt.newRate
			if err := s.SetTenants([]tenant.Tenant{acme}); err != nil {
				t.Fatal(err)
			}
			runs("after the reload", tt.wantAfter)
		})
	}
}

// fastRate is a rate no test's requests come near: its limiter gives
// a turn back every microsecond.
const fastRate = 1e6

// TestReloadKeepsRunsInFlight: a tenant at its limit of runs at once, a
// run in flight, is held to it across a reload, whatever the reload
// changed of the tenant, and across two that removed it and named it
// again (counted from zero, it had two runs in flight): the next run is
// refused 429 concurrency-limit and never reaches the runner; a limit
// raised lets that many more through, no more. The control is the refusal before the reload, and a
// run that is let through once every run has ended.
func TestReloadKeepsRunsInFlight(t *testing.T) {
	tests := []struct {
		name     string
		after    tenant.Tenant // acme's limits after the reload
		wantMore int           // runs that start after the reload, before one is refused
		removed  bool          // a reload that names beta alone comes first
	}{
		{name: "the same limits", after: tenant.Tenant{Concurrency: 1}},
		{name: "removed, then named again", after: tenant.Tenant{Concurrency: 1}, removed: true},
		{name: "a rate given", after: tenant.Tenant{Concurrency: 1, Rate: fastRate}},
		{name: "the limit raised to 2", after: tenant.Tenant{Concurrency: 2}, wantMore: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 8)}
			acme := tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Concurrency: 1}
			s, ts, _ := tenantServer(t, fake, acme)
			var release sync.Once
			var inFlight sync.WaitGroup
			end := func() {
				release.Do(func() { close(fake.block) })
				inFlight.Wait()
			}
			t.Cleanup(end) // before the server closes, which waits for its requests
			// try sends a run and says whether it started in the runner
			// (it then stays in flight until end) or was answered first.
			try := func() (status int, code string, started bool) {
				done := make(chan [2]any, 1)
				inFlight.Add(1)
				go func() {
					defer inFlight.Done()
					resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
					c, _ := errCode(v)
					done <- [2]any{resp.StatusCode, c}
				}()
				select {
				case <-fake.start:
					return 0, "", true
				case r := <-done:
					return r[0].(int), r[1].(string), false
				}
			}
			if _, _, started := try(); !started {
				t.Fatal("the first run did not start")
			}
			if st, code, started := try(); started || st != 429 || code != CodeConcurrencyLimit {
				t.Fatalf("a second run at once before the reload: %d %s (started: %v); want 429 %s", st, code, started, CodeConcurrencyLimit)
			}
			after := tt.after
			after.Name, after.TokenSHA256 = acme.Name, acme.TokenSHA256
			if tt.removed {
				beta := tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta)}
				if err := s.SetTenants([]tenant.Tenant{beta}); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.SetTenants([]tenant.Tenant{after}); err != nil {
				t.Fatal(err)
			}
			for i := range tt.wantMore {
				if st, code, started := try(); !started {
					t.Errorf("run %d after the reload: %d %s; want it to start, within the limit raised", i+1, st, code)
				}
			}
			if st, code, started := try(); started || st != 429 || code != CodeConcurrencyLimit {
				t.Errorf("a run past the limit after the reload: %d %s (started: %v); want 429 %s, the runs in flight counted", st, code, started, CodeConcurrencyLimit)
			}
			end()
			if n := s.tenants.Load().list[0].running.Load(); n != 0 {
				t.Errorf("%d runs counted in flight after all ended", n)
			}
			if resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`); resp.StatusCode != 200 {
				t.Errorf("a run once all ended: %d %v", resp.StatusCode, v)
			}
		})
	}
}

// TestReloadForgetsARemovedTenantsRuns: a reload whose tenants no longer
// name a tenant lets its runs go from the ledger, and the bytes of their
// receipts held in memory: a tenant no longer named sends no request
// again, and the ledger never forgets a tenant for room, so what it kept
// of each tenant a reload removed stayed for the life of the server.
// The control: a tenant the reload keeps keeps its runs.
func TestReloadForgetsARemovedTenantsRuns(t *testing.T) {
	acme := tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme)}
	beta := tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta)}
	s, ts, _ := tenantServer(t, &fakeRunner{}, acme, beta)
	for _, tok := range []string{tokenAcme, tokenBeta} {
		if resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tok, `{"source":"print(1)"}`); resp.StatusCode != 200 {
			t.Fatalf("a run: %d %v", resp.StatusCode, v)
		}
	}
	if err := s.SetTenants([]tenant.Tenant{beta}); err != nil {
		t.Fatal(err)
	}
	if runs := s.ledger.runs("tenant acme"); len(runs) != 0 {
		t.Errorf("the ledger keeps %d runs of acme, which the reload removed", len(runs))
	}
	if runs := s.ledger.runs("tenant beta"); len(runs) != 1 {
		t.Errorf("the control: the ledger keeps %d runs of beta, which the reload kept; want 1",
			len(runs))
	}
	s.ledger.mu.Lock()
	held := s.ledger.held.Len()
	s.ledger.mu.Unlock()
	if held != 1 {
		t.Errorf("the ledger holds %d receipts in memory; want beta's alone", held)
	}
}

// TestReloadChangesTheRequestsBound: a reload that changes a tenant's
// bound of requests holds its requests to the new one from then on, as
// a reload that changes its rate of runs does (TestReloadChangesTheRate):
// a bound raised lets through what the old one refused, a bound lowered
// refuses what the old one let through. The control is a reload that
// changes nothing, after which the requests the tenant spent still count.
func TestReloadChangesTheRequestsBound(t *testing.T) {
	tests := []struct {
		name                  string
		requests, newRequests float64
		wantBefore, wantAfter []int // the status of each request before the reload, and after
	}{
		{name: "the bound raised", requests: 0.01, newRequests: fastRate,
			wantBefore: []int{200, 429}, wantAfter: []int{200, 200, 200}},
		{name: "the bound lowered", requests: fastRate, newRequests: 0.01,
			wantBefore: []int{200, 200, 200}, wantAfter: []int{200, 429}},
		{name: "nothing changed", requests: 0.01, newRequests: 0.01,
			wantBefore: []int{200, 429}, wantAfter: []int{429}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acme := tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme),
				Requests: tt.requests, RequestBurst: 1}
			s, ts, _ := tenantServer(t, &fakeRunner{}, acme)
			requests := func(when string, want []int) {
				t.Helper()
				for i, w := range want {
					resp, v := do(t, ts, "GET", "/v1/health", "Bearer "+tokenAcme, "")
					if resp.StatusCode != w {
						code, msg := errCode(v)
						t.Errorf("request %d %s: %d %s %q, want %d", i+1, when, resp.StatusCode,
							code, msg, w)
					}
				}
			}
			requests("before the reload", tt.wantBefore)
			acme.Requests = tt.newRequests
			if err := s.SetTenants([]tenant.Tenant{acme}); err != nil {
				t.Fatal(err)
			}
			requests("after the reload", tt.wantAfter)
		})
	}
}
