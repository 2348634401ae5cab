package door

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/tenant"
	"golang.org/x/time/rate"
)

const (
	tokenAcme = "acme-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	tokenBeta = "beta-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
)

// tenantServer is a door of the tenants ts, serving with its own log.
func tenantServer(t *testing.T, fake *fakeRunner, ts ...tenant.Tenant) (*Server, *httptest.Server, *strings.Builder) {
	t.Helper()
	var mu sync.Mutex
	log := &strings.Builder{}
	s, err := New(Config{Runner: fake, Tenants: ts, Workers: 8, Queue: 8, Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(log, f+"\n", a...)
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv, log
}

func digest(token string) string { return tenant.DigestOf(token) }

// TestTenantRate: past its rate a tenant is answered 429 rate-limit with
// Retry-After, naming its limit, and nothing runs; another tenant runs
// beside it all the while.
func TestTenantRate(t *testing.T) {
	fake := &fakeRunner{}
	_, ts, log := tenantServer(t, fake,
		tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Rate: 0.01, Burst: 2},
		tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta)})
	for i := range 2 {
		if resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`); resp.StatusCode != 200 {
			t.Fatalf("acme's run %d within its burst: %d %v", i+1, resp.StatusCode, v)
		}
	}
	resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
	code, msg := errCode(v)
	if resp.StatusCode != 429 || code != CodeRateLimit || !strings.Contains(msg, "tenant acme may start 0.01 runs a second (a burst of 2)") {
		t.Errorf("acme past its rate: %d %s %q", resp.StatusCode, code, msg)
	}
	// At 0.01 runs a second the next turn is at most 100 s away.
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 100 {
		t.Errorf("Retry-After %q, want whole seconds, 1 to 100", resp.Header.Get("Retry-After"))
	}
	if resp, _ := do(t, ts, "POST", "/v1/audit", "Bearer "+tokenAcme, `{"source":"print(1)"}`); resp.StatusCode != 429 {
		t.Errorf("acme's audit past its rate: %d, want 429", resp.StatusCode)
	}
	if n := fake.ran.Load(); n != 2 {
		t.Errorf("%d runs, want the 2 within the burst", n)
	}
	for i := range 5 {
		if resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenBeta, `{"source":"print(1)"}`); resp.StatusCode != 200 {
			t.Errorf("beta's run %d beside acme past its rate: %d %v", i+1, resp.StatusCode, v)
		}
	}
	if strings.Contains(log.String(), tokenAcme) || strings.Contains(log.String(), tokenBeta) {
		t.Errorf("a token is in the log:\n%s", log)
	}
	if !strings.Contains(log.String(), "tenant acme may start") {
		t.Errorf("the refusal is not in the log:\n%s", log)
	}
}

// TestTenantConcurrency: a tenant with all its runs at once is answered
// 429 concurrency-limit; once one ends, it runs again.
func TestTenantConcurrency(t *testing.T) {
	fake := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 8)}
	s, ts, _ := tenantServer(t, fake, tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Concurrency: 1})
	done := make(chan int)
	go func() {
		resp, _ := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
		done <- resp.StatusCode
	}()
	<-fake.start
	resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`)
	code, msg := errCode(v)
	if resp.StatusCode != 429 || code != CodeConcurrencyLimit || !strings.Contains(msg, "tenant acme may have 1 runs at once") ||
		resp.Header.Get("Retry-After") == "" {
		t.Errorf("a second run at once: %d %s %q, Retry-After %q", resp.StatusCode, code, msg, resp.Header.Get("Retry-After"))
	}
	close(fake.block)
	if st := <-done; st != 200 {
		t.Errorf("the first run: %d", st)
	}
	if resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`); resp.StatusCode != 200 {
		t.Errorf("a run once the first ended: %d %v", resp.StatusCode, v)
	}
	if n := s.tenants.Load().list[0].running.Load(); n != 0 {
		t.Errorf("%d runs counted in flight after all ended", n)
	}
}

// TestTenantCeiling: the door hands the Runner the tenant's name and
// ceiling with each run; the client cannot set them.
func TestTenantCeiling(t *testing.T) {
	fake := &fakeRunner{}
	ceiling := budget.MustParse("/", "io")
	_, ts, _ := tenantServer(t, fake, tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Ceiling: &ceiling})
	if resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)"}`); resp.StatusCode != 200 {
		t.Fatalf("%d %v", resp.StatusCode, v)
	}
	req := fake.lastRequest()
	if req.Tenant != "acme" || req.Ceiling == nil || req.Ceiling.String() != "io" {
		t.Errorf("the Runner was handed tenant %q, ceiling %v; want acme, io", req.Tenant, req.Ceiling)
	}
	resp, _ := do(t, ts, "POST", "/v1/run", "Bearer "+tokenAcme, `{"source":"print(1)","tenant":"beta"}`)
	if resp.StatusCode != 400 {
		t.Errorf("a request naming a tenant: %d, want 400 (no such field)", resp.StatusCode)
	}
}

// TestSetTenants: a reload takes a tenant away (its token is refused from
// then on) and adds one; a tenant whose limits did not change keeps what
// its limiter counted, one whose limits changed starts afresh.
func TestSetTenants(t *testing.T) {
	fake := &fakeRunner{}
	acme := tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Rate: 0.01, Burst: 1}
	s, ts, _ := tenantServer(t, fake, acme)
	run := func(token string) int {
		resp, _ := do(t, ts, "POST", "/v1/run", "Bearer "+token, `{"source":"print(1)"}`)
		return resp.StatusCode
	}
	if st := run(tokenAcme); st != 200 {
		t.Fatalf("acme's first run: %d", st)
	}
	if st := run(tokenBeta); st != 401 {
		t.Errorf("beta before it is a tenant: %d, want 401", st)
	}
	if err := s.SetTenants([]tenant.Tenant{acme, {Name: "beta", TokenSHA256: digest(tokenBeta)}}); err != nil {
		t.Fatal(err)
	}
	if st := run(tokenBeta); st != 200 {
		t.Errorf("beta once added: %d, want 200", st)
	}
	if st := run(tokenAcme); st != 429 {
		t.Errorf("acme after a reload that kept its limits: %d, want 429 (its burst spent before)", st)
	}
	acme.Burst = 2
	if err := s.SetTenants([]tenant.Tenant{acme}); err != nil {
		t.Fatal(err)
	}
	if st := run(tokenAcme); st != 200 {
		t.Errorf("acme after a reload that changed its limits: %d, want 200", st)
	}
	if st := run(tokenBeta); st != 401 {
		t.Errorf("beta once taken away: %d, want 401", st)
	}
}

// TestNewTenantsAndToken: a door is given a token or tenants, not both.
func TestNewTenantsAndToken(t *testing.T) {
	_, err := New(Config{Runner: &fakeRunner{}, Token: testToken, Tenants: []tenant.Tenant{{Name: "a"}}})
	if err == nil {
		t.Error("New with a token and tenants: no error")
	}
}

// TestProbes: /healthz answers alive with no token and any Host; /readyz
// answers 503 with the reason's word while Ready says so (other, for an
// error of no reason: TestReadyReasons has each), 200 once it does not,
// and 503 while the server stops.
func TestProbes(t *testing.T) {
	var why error = errors.New("the receipts reach the shared store 40s late, past 30s")
	var mu sync.Mutex
	s, ts := newTestServer(t, Config{Runner: &fakeRunner{}, Ready: func() error {
		mu.Lock()
		defer mu.Unlock()
		return why
	}})
	if resp, v := do(t, ts, "GET", "/healthz", "", ""); resp.StatusCode != 200 || v["status"] != "alive" {
		t.Errorf("/healthz: %d %v", resp.StatusCode, v)
	}
	resp, v := do(t, ts, "GET", "/readyz", "", "")
	if resp.StatusCode != 503 || v["status"] != "not-ready" || v["reason"] != ReasonOther {
		t.Errorf("/readyz while not ready: %d %v", resp.StatusCode, v)
	}
	mu.Lock()
	why = nil
	mu.Unlock()
	if resp, v := do(t, ts, "GET", "/readyz", "", ""); resp.StatusCode != 200 || v["status"] != "ready" {
		t.Errorf("/readyz once ready: %d %v", resp.StatusCode, v)
	}
	if resp, _ := do(t, ts, "GET", "/v1/health", "", ""); resp.StatusCode != 401 {
		t.Errorf("/v1/health without a token: %d, want 401 (only the probes are open)", resp.StatusCode)
	}
	s.Stop()
	if resp, v := do(t, ts, "GET", "/readyz", "", ""); resp.StatusCode != 503 || v["status"] != CodeShuttingDown {
		t.Errorf("/readyz while stopping: %d %v", resp.StatusCode, v)
	}
	if resp, _ := do(t, ts, "GET", "/healthz", "", ""); resp.StatusCode != 200 {
		t.Errorf("/healthz while stopping: %d, want 200 (alive)", resp.StatusCode)
	}
}

// TestLimitRetryAfter: a tenant refused by one of its limits is told to
// wait the limit's delay in whole seconds, rounded up, and at least 1,
// in the Retry-After header and in the body's retry_after alike.
func TestLimitRetryAfter(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
		want  int
	}{
		{"no delay", 0, 1},
		{"a nanosecond", time.Nanosecond, 1},
		{"just under a second", time.Second - time.Nanosecond, 1},
		{"a second", time.Second, 1},
		{"just past a second", time.Second + time.Nanosecond, 2},
		{"a second and a half", 1500 * time.Millisecond, 2},
		{"two seconds", 2 * time.Second, 2},
		{"a run's interval at 0.01 a second", 100 * time.Second, 100},
		{"just under it", 100*time.Second - time.Millisecond, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			writeLimit(w, &limitError{code: CodeRateLimit, msg: "refused", retryAfter: tt.delay})
			var body errorBody
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if h := w.Header().Get("Retry-After"); w.Code != 429 || h != strconv.Itoa(tt.want) ||
				body.Error.RetryAfter != tt.want {
				t.Errorf("%d, Retry-After %q, retry_after %d; want 429, %d, %d",
					w.Code, h, body.Error.RetryAfter, tt.want, tt.want)
			}
		})
	}
}

// TestSetTenantsRefusesUnheld: a tenant with an allow list its ceiling was
// never made from, or out of a tenants file's bounds, is refused and the
// door keeps the tenants it had; the same tenant held to a scope is taken.
func TestSetTenantsRefusesUnheld(t *testing.T) {
	s, ts, _ := tenantServer(t, &fakeRunner{}, tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme)})
	beta := tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta), Allow: []string{"io"}}
	if err := s.SetTenants([]tenant.Tenant{beta}); err == nil || !strings.Contains(err.Error(), "tenant.Load") {
		t.Fatalf("SetTenants of an unheld allow list = %v, want a refusal naming tenant.Load", err)
	}
	bad := tenant.Tenant{Name: "beta", TokenSHA256: "not hex"}
	if err := s.SetTenants([]tenant.Tenant{bad}); err == nil {
		t.Fatal("SetTenants of a malformed digest: no error")
	}
	if resp, _ := do(t, ts, "GET", "/v1/health", "Bearer "+tokenAcme, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the refusals acme is answered %d, want 200: the old tenants kept", resp.StatusCode)
	}
	if resp, _ := do(t, ts, "GET", "/v1/health", "Bearer "+tokenBeta, ""); resp.StatusCode != 401 {
		t.Fatalf("refused, beta is answered %d, want 401", resp.StatusCode)
	}
	held := []tenant.Tenant{beta}
	if err := (tenant.Scope{Ceiling: budget.MustParse("/", "io")}).Hold(held); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTenants(held); err != nil {
		t.Fatalf("SetTenants of a held tenant: %v", err)
	}
	if resp, _ := do(t, ts, "GET", "/v1/health", "Bearer "+tokenBeta, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("beta, once taken, is answered %d, want 200", resp.StatusCode)
	}
}

// TestHoldFor: a refusal past a tenant's bound of requests is held for
// the Retry-After its reply says, whole seconds as the header has them,
// at most maxHoldBack: held for the limiter's own wait alone (a tenth of
// a second at ten requests a second), a client that sends again at once
// would send ten requests a connection a second, not one.
func TestHoldFor(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter time.Duration
		want       time.Duration
	}{
		{name: "a tenth of a second", retryAfter: 100 * time.Millisecond, want: time.Second},
		{name: "no wait", retryAfter: 0, want: time.Second},
		{name: "a second", retryAfter: time.Second, want: time.Second},
		{name: "past the bound", retryAfter: 2500 * time.Millisecond, want: maxHoldBack},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			le := &limitError{code: CodeRateLimit, retryAfter: tt.retryAfter}
			got := holdFor(le)
			if got != tt.want {
				t.Errorf("holdFor(%v) = %v, want %v", tt.retryAfter, got, tt.want)
			}
			if header := time.Duration(limitDetail(le).RetryAfter) * time.Second; got != min(header, maxHoldBack) {
				t.Errorf("held %v, but the reply says Retry-After %v", got, header)
			}
		})
	}
}

// TestRefusalSpendsNoTurn: a run refused for its tenant's rate spends
// no turn of it, however many are refused: each refusal's Retry-After is
// the wait for the next turn, a second at a rate of one a second, not a
// second more for each refusal before it (a client that sent again at
// once, refused, was put off further each time). The control: the first
// run, within the burst, takes its turn.
func TestRefusalSpendsNoTurn(t *testing.T) {
	ts := &tenantState{Tenant: tenant.Tenant{Name: "acme", Rate: 1, Burst: 1},
		limiter: rate.NewLimiter(1, 1)}
	if err := ts.rate(); err != nil {
		t.Fatalf("the first run, within the burst: %v", err)
	}
	for i := range 5 {
		var le *limitError
		if err := ts.rate(); !errors.As(err, &le) || le.retryAfter > time.Second {
			t.Fatalf("run %d past the rate: %v; want refused, to wait a second at most", i+2, err)
		}
	}
}
