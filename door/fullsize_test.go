package door

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
	"github.com/sabline/sabline/receipt/bucket"
	"github.com/sabline/sabline/receipt/ship"
	"github.com/sabline/sabline/tenant"
)

// The tests of this file hold the door's server at full size, as an
// operator runs it: every connection slot held idle by one tenant, and
// a tenant's lookup while the shared store is down.
// TestIdleConnectionsAreTakenBackFairly and TestReceiptLookupStoreDown
// hold the same at smaller figures.

// openFilesLimit is the soft limit on this process's open files, as
// /proc/self/limits says it; ok is false where there is no such file
// (macOS, Windows) or it says "unlimited".
func openFilesLimit() (limit int, ok bool) {
	data, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if rest, found := strings.CutPrefix(line, "Max open files"); found {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			n, err := strconv.Atoi(f[0])
			return n, err == nil
		}
	}
	return 0, false
}

// TestIdleSlotsAtFullSize: a tenant holding all MaxConns slots (1,024,
// the default) with idle keep-alive connections, each answered GET
// /v1/health, leaves another tenant its turn: a health check and a run
// of beta's, each on a new connection, are answered, and acme's two
// longest idle connections are closed for them, no other. The controls:
// acme's one connection more is refused 429 busy naming the bound, and
// its connections not taken back answer again.
func TestIdleSlotsAtFullSize(t *testing.T) {
	// Both ends of every connection are this process's, and a few more.
	need := 2*MaxConns + 128
	if limit, ok := openFilesLimit(); ok && limit < need {
		t.Skipf("the soft limit on open files is %d: %d connections (both ends) need %d",
			limit, MaxConns, need)
	}
	s, err := New(Config{Runner: &fakeRunner{}, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme)},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s.cfg.MaxConns != MaxConns {
		t.Fatalf("a server of no MaxConns holds %d, want the default %d", s.cfg.MaxConns,
			MaxConns)
	}
	addr := serveOn(t, s).addr
	held := make([]*rawConn, 0, MaxConns)
	for i := range MaxConns {
		c := dialRaw(t, addr)
		if st := c.get(t, "/v1/health", tokenAcme); st != http.StatusOK {
			t.Fatalf("acme's connection %d: %d %s", i+1, st, c.body)
		}
		held = append(held, c)
		// Idle in the order they were made (TestIdleConnectionsAreTakenBackFairly).
		waitFor(t, func() bool { return s.conns.idleOf("acme") == i+1 })
	}
	if a := s.conns.heldBy("acme"); a != MaxConns {
		t.Fatalf("acme holds %d slots, want all %d", a, MaxConns)
	}

	more := dialRaw(t, addr)
	full := fmt.Sprintf("the server holds %d connections", MaxConns)
	if st := more.get(t, "/v1/health", tokenAcme); st != http.StatusTooManyRequests ||
		!strings.Contains(more.body, `"code":"`+CodeBusy+`"`) ||
		!strings.Contains(more.body, full) {
		t.Errorf("acme's connection %d: %d %s, want 429 %s saying %q", MaxConns+1, st, more.body,
			CodeBusy, full)
	}

	beta := dialRaw(t, addr)
	if st := beta.get(t, "/v1/health", tokenBeta); st != http.StatusOK {
		t.Errorf("beta's health while acme holds every slot: %d %s, want 200", st, beta.body)
	}
	if st := postOn(t, addr, "/v1/run", tokenBeta, `{"source":"print(1)"}`); st != http.StatusOK {
		t.Errorf("beta's run while acme holds every slot but one: %d, want 200", st)
	}
	for i, c := range held[:2] {
		if !c.closed(testkit.Bound(time.Minute)) {
			t.Errorf("acme's connection %d, idle longest but for %d, was not closed", i+1, i)
		}
	}
	// The run's connection is closed once answered; beta's health one stays.
	waitFor(t, func() bool { return s.conns.heldBy("beta") == 1 })
	if a := s.conns.heldBy("acme"); a != MaxConns-2 {
		t.Errorf("acme holds %d slots, want %d: two taken back", a, MaxConns-2)
	}
	for i, c := range held[2:] {
		if st := c.get(t, "/v1/health", tokenAcme); st != http.StatusOK {
			t.Fatalf("acme's connection %d, not taken back: %d %s", i+3, st, c.body)
		}
	}
}

// TestTenantLookupStoreDown: on a server of a tenants file (acme, beta)
// reading the fleet's shared store, a tenant's lookup of a run its own
// journal does not hold, while the store is down, is 503
// receipts-unavailable with Retry-After, and says nothing the store said
// (its endpoint, bucket, replica, journal ids, keys); the log says it
// all. The controls, the same lookups once the store is up: acme's run
// that another replica shipped is answered, the same run asked by beta
// and runs that never were are 404; and while the store is down, a run
// of the server's own journal is answered.
func TestTenantLookupStoreDown(t *testing.T) {
	ctx := context.Background()
	b := bucket.NewMemory()
	// Another replica of the fleet, named by a sentinel, ships a run of acme's.
	other, err := receipt.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	shipped := receipt.NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	shipped.Timings.Started = time.Now().UTC()
	shipped.Tenant = "acme"
	if err := other.Reserve(shipped); err != nil {
		t.Fatal(err)
	}
	shipped.Outcome = receipt.OutcomeOf(nil)
	other.Finish(shipped)
	sh, err := ship.Start(other, b, ship.Options{Replica: storeSentinels[2], Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Close(ctx); err != nil || sh.Objects() == 0 {
		t.Fatalf("the other replica shipped %d objects: %v", sh.Objects(), err)
	}
	keys, err := b.List(ctx, "")
	if err != nil || len(keys) == 0 {
		t.Fatalf("the bucket's keys: %v, %v", keys, err)
	}
	storeWords := append([]string{}, storeSentinels...)
	for _, k := range keys {
		storeWords = append(storeWords, k)
		if rest, ok := strings.CutPrefix(k, ship.Prefix+storeSentinels[2]+"/"); ok {
			storeWords = append(storeWords, strings.Split(rest, "/")[0]) // the journal's id
		}
	}

	root, rc := t.TempDir(), t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
		Budget: budget.MustParse(root, "io"), Receipts: rc})
	r.ReadShared(ship.NewReader(b))
	tenants := []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme)},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}
	var log syncBuffer
	logger := slog.New(slog.NewJSONHandler(&log, nil))
	_, srv := healthServer(t, Config{Runner: r, Tenants: tenants, Logger: logger})

	never := receipt.NewForSource("/p.vel", nil, budget.Budget{}, nil).RunID // never stored
	tests := []struct {
		name, token, id string
		wantUp          int // the status once the store is up
	}{
		{name: "acme's run of another replica", token: tokenAcme, id: shipped.RunID,
			wantUp: http.StatusOK},
		{name: "the same run, asked by beta", token: tokenBeta, id: shipped.RunID,
			wantUp: http.StatusNotFound},
		{name: "a run that never was", token: tokenBeta, id: never,
			wantUp: http.StatusNotFound},
		{name: "a run id of the earlier form that never was", token: tokenAcme,
			id: "ffffffffffffffff", wantUp: http.StatusNotFound},
	}
	// Down first: the reader has listed nothing yet, so that each lookup
	// asks the store (a miss of the earlier form lists it at most twice a
	// second).
	b.Fail = storeFailure()
	for _, tt := range tests {
		status, h, body := testkit.Get(t, srv.URL+"/v1/receipts/"+tt.id, "Bearer "+tt.token)
		if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" ||
			!strings.Contains(body, `"code":"`+CodeReceiptsUnavailable+`"`) {
			t.Errorf("%s, the store down: %d %s (Retry-After %q), want 503 %s", tt.name, status,
				body, h.Get("Retry-After"), CodeReceiptsUnavailable)
		}
		for _, w := range storeWords {
			if strings.Contains(body, w) {
				t.Errorf("%s, the store down: the reply says %q: %s", tt.name, w, body)
			}
		}
	}
	for _, s := range storeSentinels {
		if !strings.Contains(log.String(), s) {
			t.Errorf("the log does not say %q: %s", s, log.String())
		}
	}

	// A run of the server's own journal, the store still down: acme runs
	// through another server over the same runner, so that srv's ledger in
	// memory holds none of it, and srv reads it from the journal.
	_, first := healthServer(t, Config{Runner: r, Tenants: tenants})
	resp, v := do(t, first, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
	own, _ := v["run_id"].(string)
	if resp.StatusCode != http.StatusOK || own == "" {
		t.Fatalf("acme's run: %d %v", resp.StatusCode, v)
	}
	status, _, body := testkit.Get(t, srv.URL+"/v1/receipts/"+own, "Bearer "+tokenAcme)
	if status != http.StatusOK || !strings.Contains(body, own) {
		t.Errorf("acme's run of the server's own journal, the store down: %d %s, want 200",
			status, body)
	}

	b.Fail = nil
	for _, tt := range tests {
		status, _, body := testkit.Get(t, srv.URL+"/v1/receipts/"+tt.id, "Bearer "+tt.token)
		if status != tt.wantUp || (tt.wantUp == http.StatusOK && !strings.Contains(body, tt.id)) {
			t.Errorf("%s, the store up: %d %s, want %d", tt.name, status, body, tt.wantUp)
		}
		for _, w := range storeWords {
			if strings.Contains(body, w) {
				t.Errorf("%s, the store up: the reply says %q: %s", tt.name, w, body)
			}
		}
	}
}
