package door

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/tenant"
)

// The words of the store a test's errors carry: none may reach a client
// that is not the operator's log.
var storeSentinels = []string{
	"https://store-endpoint-sentinel.example:9000",
	"bucket-sentinel-5e1f",
	"replica-sentinel-a9",
	"journal-sentinel-77c2",
	"/srv/operator-sentinel/receipts",
}

// storeFailure is an error as a store that is down says it, every
// sentinel in it.
func storeFailure() error {
	return codes.Errorf(codes.E317, "read receipt 0123456789abcdef from %s/%s/%s/%s.seg (%s): "+
		"connection refused", storeSentinels[0], storeSentinels[1], storeSentinels[2],
		storeSentinels[3], storeSentinels[4])
}

// get sends GET path, with the token when auth, and returns the status,
// the header and the body as sent.
func get(t *testing.T, url, path string, auth bool) (int, http.Header, string) {
	t.Helper()
	if auth {
		return testkit.Get(t, url+path, "Bearer "+testToken)
	}
	return testkit.Get(t, url+path, "")
}

// TestReadyReasons: /readyz answers each reason a server is not ready for
// in one word of ReadyReasons and nothing else: not its detail, not the
// error's words (a store's endpoint, bucket, replica and journal ids);
// the operator's token (the one token of this server) reads the detail on
// /v1/health (TestHealthOperatorOnly holds a tenant's to the word), and
// the log has the whole error. An error of no known reason is "other". The control:
// the same server ready once Ready says so.
func TestReadyReasons(t *testing.T) {
	const detail = "the detail the operator's token reads"
	tests := []struct {
		name       string
		err        error
		wantReason string
		wantDetail string
	}{
		{name: "confinement", err: &NotReady{Reason: ReasonConfinement, Detail: detail, Err: storeFailure()},
			wantReason: ReasonConfinement, wantDetail: detail},
		{name: "receipts", err: &NotReady{Reason: ReasonReceipts, Detail: detail, Err: storeFailure()},
			wantReason: ReasonReceipts, wantDetail: detail},
		{name: "store lagging", err: &NotReady{Reason: ReasonStoreLagging, Detail: detail, Err: storeFailure()},
			wantReason: ReasonStoreLagging, wantDetail: detail},
		{name: "wrapped", err: fmt.Errorf("readiness: %w", &NotReady{Reason: ReasonStoreLagging, Detail: detail, Err: storeFailure()}),
			wantReason: ReasonStoreLagging, wantDetail: detail},
		{name: "a reason of none of the words", err: &NotReady{Reason: storeSentinels[1], Detail: detail, Err: storeFailure()},
			wantReason: ReasonOther, wantDetail: detail},
		{name: "a plain error", err: storeFailure(), wantReason: ReasonOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			why := tt.err
			var log syncBuffer
			_, ts := newTestServer(t, Config{Runner: &fakeRunner{},
				Logger: slog.New(slog.NewJSONHandler(&log, nil)),
				Ready: func() error {
					mu.Lock()
					defer mu.Unlock()
					return why
				}})
			status, h, body := get(t, ts.URL, "/readyz", false)
			want := fmt.Sprintf(`{"status":"not-ready","reason":%q}`+"\n", tt.wantReason)
			if status != http.StatusServiceUnavailable || body != want || h.Get("Retry-After") == "" {
				t.Errorf("/readyz: %d %q (Retry-After %q), want 503 %q", status, body, h.Get("Retry-After"), want)
			}
			if !slices.Contains(ReadyReasons, tt.wantReason) {
				t.Errorf("reason %q is not one of %v", tt.wantReason, ReadyReasons)
			}
			for _, s := range append(storeSentinels, detail) {
				if strings.Contains(body, s) {
					t.Errorf("/readyz says %q: %s", s, body)
				}
			}
			status, _, body = get(t, ts.URL, "/v1/health", true)
			if status != http.StatusOK || !strings.Contains(body, `"ready":false`) ||
				!strings.Contains(body, fmt.Sprintf(`"reason":%q`, tt.wantReason)) ||
				(tt.wantDetail != "" && !strings.Contains(body, tt.wantDetail)) {
				t.Errorf("/v1/health: %d %s, want ready false, reason %s, detail %q", status, body, tt.wantReason, tt.wantDetail)
			}
			for _, s := range storeSentinels {
				if strings.Contains(body, s) {
					t.Errorf("/v1/health says %q: %s", s, body)
				}
			}
			if status, _, _ := get(t, ts.URL, "/v1/health", false); status != http.StatusUnauthorized {
				t.Errorf("/v1/health without a token: %d, want 401", status)
			}
			for _, s := range storeSentinels {
				if !strings.Contains(log.String(), s) {
					t.Errorf("the log does not say %q: %s", s, log.String())
				}
			}
			if n := strings.Count(log.String(), "not ready: "); n != 1 {
				t.Errorf("%d records of not ready after three probes, want 1: %s", n, log.String())
			}

			mu.Lock()
			why = nil
			mu.Unlock()
			if status, _, body := get(t, ts.URL, "/readyz", false); status != http.StatusOK || body != `{"status":"ready"}`+"\n" {
				t.Errorf("/readyz once ready: %d %q", status, body)
			}
			if status, _, body := get(t, ts.URL, "/v1/health", true); status != http.StatusOK || !strings.Contains(body, `"ready":true`) ||
				strings.Contains(body, `"reason"`) {
				t.Errorf("/v1/health once ready: %d %s", status, body)
			}
			if !strings.Contains(log.String(), `"msg":"ready"`) {
				t.Errorf("the log does not say the server is ready again: %s", log.String())
			}
		})
	}
}

// TestReadyWhileStopping: a server that stops is not ready, and says so in
// the word shutting-down (one of ReadyReasons), whatever Ready says.
func TestReadyWhileStopping(t *testing.T) {
	s, ts := newTestServer(t, Config{Runner: &fakeRunner{}, Ready: func() error { return nil }})
	if status, _, _ := get(t, ts.URL, "/readyz", false); status != http.StatusOK {
		t.Errorf("/readyz before Stop: %d, want 200", status)
	}
	s.Stop()
	status, _, body := get(t, ts.URL, "/readyz", false)
	want := `{"status":"shutting-down","reason":"shutting-down"}` + "\n"
	if status != http.StatusServiceUnavailable || body != want || !slices.Contains(ReadyReasons, CodeShuttingDown) {
		t.Errorf("/readyz while stopping: %d %q, want 503 %q", status, body, want)
	}
}

// TestReceiptLookupStoreDown: a receipt lookup that fails because the
// store is down is 503 receipts-unavailable with Retry-After, and says
// nothing the store said (its endpoint, bucket, replica and journal ids,
// the receipts directory), on HTTP and on MCP; the log says all of it.
// The controls: a lookup of a run the server knows answers it, and one of
// a run that never was is 404.
func TestReceiptLookupStoreDown(t *testing.T) {
	f := &fakeRunner{}
	var log syncBuffer
	s, ts := newTestServer(t, Config{Runner: f, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	if status, _, body := get(t, ts.URL, "/v1/receipts/ffffffffffffffff", true); status != http.StatusNotFound {
		t.Errorf("a run that never was, the store up: %d %s, want 404", status, body)
	}
	f.storeErr = storeFailure()
	status, h, body := get(t, ts.URL, "/v1/receipts/ffffffffffffffff", true)
	if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" ||
		!strings.Contains(body, `"code":"`+CodeReceiptsUnavailable+`"`) || !strings.Contains(body, `"do":`) {
		t.Errorf("a lookup, the store down: %d %s (Retry-After %q), want 503 %s with what to do",
			status, body, h.Get("Retry-After"), CodeReceiptsUnavailable)
	}
	_, err := s.readReceipt(t.Context(), readRequest(ReceiptURIPrefix+"ffffffffffffffff"))
	if !errors.Is(err, errReceiptsUnavailable) {
		t.Errorf("resources/read, the store down: %v, want %v", err, errReceiptsUnavailable)
	}
	for _, s := range storeSentinels {
		if strings.Contains(body, s) {
			t.Errorf("the lookup's reply says %q: %s", s, body)
		}
		if err != nil && strings.Contains(err.Error(), s) {
			t.Errorf("resources/read says %q: %v", s, err)
		}
		if !strings.Contains(log.String(), s) {
			t.Errorf("the log does not say %q: %s", s, log.String())
		}
	}
	f.storeErr = nil
	if _, v := do(t, ts, "POST", "/v1/run", "Bearer "+testToken, `{"source":"print(1)"}`); v["run_id"] != fakeRunID {
		t.Fatalf("a run: %v", v)
	}
	f.storeErr = storeFailure() // the ledger answers for the run it keeps
	if status, _, body := get(t, ts.URL, "/v1/receipts/"+fakeRunID, true); status != http.StatusOK {
		t.Errorf("the receipt of a run the server keeps: %d %s, want 200", status, body)
	}
}

// TestReceiptLookupStoreHangs: a receipt lookup that fails because the
// store did not answer within its call's deadline (the store agent's, or
// the store's, hung) is 503 receipts-unavailable with Retry-After, on
// HTTP and on MCP, and the log says why: the deadline is the store's, not
// the client's, which is still there to read the answer, and the server
// is not stopping. The control: the store answering, the run is 404.
func TestReceiptLookupStoreHangs(t *testing.T) {
	f := &fakeRunner{}
	var log syncBuffer
	s, ts := newTestServer(t, Config{Runner: f, Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	if status, _, body := get(t, ts.URL, "/v1/receipts/ffffffffffffffff", true); status != http.StatusNotFound {
		t.Errorf("a run that never was, the store up: %d %s, want 404", status, body)
	}
	f.storeErr = codes.Errorf(codes.E317, "list the receipts bucket's locators of ffffffffffffffff: "+
		"bucket: list locators/x/: no answer within 30s: %w", context.DeadlineExceeded)
	status, h, body := get(t, ts.URL, "/v1/receipts/ffffffffffffffff", true)
	if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" ||
		!strings.Contains(body, `"code":"`+CodeReceiptsUnavailable+`"`) {
		t.Errorf("a lookup, the store past its deadline: %d %s (Retry-After %q), want 503 %s",
			status, body, h.Get("Retry-After"), CodeReceiptsUnavailable)
	}
	if !strings.Contains(log.String(), "no answer within 30s") {
		t.Errorf("the log does not say the store did not answer: %s", log.String())
	}
	_, err := s.readReceipt(t.Context(), readRequest(ReceiptURIPrefix+"ffffffffffffffff"))
	if !errors.Is(err, errReceiptsUnavailable) {
		t.Errorf("resources/read, the store past its deadline: %v, want %v", err,
			errReceiptsUnavailable)
	}
}

// readRequest is resources/read of uri as an MCP client over HTTP sends
// it, with the test's token.
func readRequest(uri string) *mcp.ReadResourceRequest {
	return &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri},
		Extra: &mcp.RequestExtra{Header: http.Header{"Authorization": {"Bearer " + testToken}}}}
}

// TestOpenAPIReadyReasons: the reasons docs/openapi.yaml gives /readyz and
// /v1/health are ReadyReasons, no more and no fewer.
func TestOpenAPIReadyReasons(t *testing.T) {
	sp := loadSpec(t)
	for _, schema := range []string{"Probe", "Health"} {
		var got []string
		enum, _ := at(map[string]any(sp), "components", "schemas", schema, "properties", "reason")["enum"].([]any)
		for _, v := range enum {
			got = append(got, fmt.Sprint(v))
		}
		if !slices.Equal(got, ReadyReasons) {
			t.Errorf("docs/openapi.yaml's %s reasons %v, the door's %v", schema, got, ReadyReasons)
		}
	}
}

// healthServer serves a door of cfg, its token or its tenants as given.
func healthServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv
}

// healthOf asks srv for /v1/health with token, and returns the status,
// the body and the body's fields, sorted.
func healthOf(t *testing.T, srv *httptest.Server, token string) (int, string, []string) {
	t.Helper()
	status, _, body := testkit.Get(t, srv.URL+"/v1/health", "Bearer "+token)
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("/v1/health: %d %q is not a JSON object: %v", status, body, err)
	}
	return status, body, slices.Sorted(maps.Keys(v))
}

// TestHealthOperatorOnly: /v1/health answers a tenant's token its status,
// version, readiness and reason, the fields of healthJSON, and nothing of
// operatorHealth: not the detail, not the server's bounds or load. The
// operator's token, a tenant marked operator or the one token of a server
// with no tenants file, reads all of it, the detail among it: the
// control, the same server in the same state. The same holds while the
// server stops, whose detail is the server's too.
func TestHealthOperatorOnly(t *testing.T) {
	const detail = "detail-sentinel-4b7e, worded by the server for its operator"
	const tokenOps = "ops-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	all, _ := jsonFields(reflect.TypeFor[healthJSON]())
	operators, _ := jsonFields(reflect.TypeFor[operatorHealth]())
	tenants := slices.DeleteFunc(slices.Clone(all), func(f string) bool {
		return slices.Contains(operators, f)
	})
	tests := []struct {
		name         string
		tenants      []tenant.Tenant // nil: a server of the one Config.Token
		token        string
		wantOperator bool
	}{
		{name: "a tenant", tenants: []tenant.Tenant{
			{Name: "acme", TokenSHA256: digest(tokenAcme)},
			{Name: "ops", TokenSHA256: digest(tokenOps), Operator: true}}, token: tokenAcme},
		{name: "a tenant marked operator", tenants: []tenant.Tenant{
			{Name: "acme", TokenSHA256: digest(tokenAcme)},
			{Name: "ops", TokenSHA256: digest(tokenOps), Operator: true}}, token: tokenOps,
			wantOperator: true},
		{name: "the one token of a server with no tenants file", token: testToken,
			wantOperator: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Runner: &fakeRunner{}, Tenants: tt.tenants, Workers: 3, Queue: 5,
				Ready: func() error {
					return &NotReady{Reason: ReasonStoreLagging, Detail: detail, Err: storeFailure()}
				}}
			if tt.tenants == nil {
				cfg.Token = testToken
			}
			s, srv := healthServer(t, cfg)
			for _, state := range []struct {
				name, detail string
				status       int
			}{
				{name: "not ready", detail: detail, status: http.StatusOK},
				{name: "stopping", detail: shuttingDownDetail, status: http.StatusServiceUnavailable},
			} {
				if state.name == "stopping" {
					s.Stop()
				}
				status, body, fields := healthOf(t, srv, tt.token)
				wantFields, wantDetail := tenants, ""
				if tt.wantOperator {
					wantFields, wantDetail = all, state.detail
				}
				if status != state.status || !slices.Equal(fields, wantFields) {
					t.Errorf("%s: /v1/health: %d %s; want %d, the fields %v", state.name, status,
						body, state.status, wantFields)
				}
				if wantDetail != "" && !strings.Contains(body, fmt.Sprintf(`"detail":%q`, wantDetail)) {
					t.Errorf("%s: the operator's /v1/health does not say %q: %s", state.name,
						wantDetail, body)
				}
				if tt.wantOperator && !strings.Contains(body, `"workers":3,"queue":5`) {
					t.Errorf("%s: the operator's /v1/health does not say the bounds: %s",
						state.name, body)
				}
				if !tt.wantOperator && strings.Contains(body, state.detail) {
					t.Errorf("%s: a tenant's /v1/health says the detail: %s", state.name, body)
				}
				for _, sentinel := range storeSentinels {
					if strings.Contains(body, sentinel) {
						t.Errorf("%s: /v1/health says %q: %s", state.name, sentinel, body)
					}
				}
			}
		})
	}
}

// TestHealthOperatorFollowsTheTenants: the operator is the tenants the
// door has now: a tenant marked operator by SetTenants (a tenants file
// read again) reads the detail from its next request, and one whose mark
// is taken away no longer does.
func TestHealthOperatorFollowsTheTenants(t *testing.T) {
	const detail = "detail-sentinel-91c3"
	s, srv := healthServer(t, Config{Runner: &fakeRunner{},
		Tenants: []tenant.Tenant{{Name: "acme", TokenSHA256: digest(tokenAcme)}},
		Ready: func() error {
			return &NotReady{Reason: ReasonReceipts, Detail: detail, Err: storeFailure()}
		}})
	for _, tt := range []struct {
		name         string
		operator     bool
		wantOperator bool
	}{
		{name: "before", wantOperator: false},
		{name: "marked operator", operator: true, wantOperator: true},
		{name: "the mark taken away", operator: false, wantOperator: false},
	} {
		if tt.name != "before" {
			err := s.SetTenants([]tenant.Tenant{{Name: "acme", TokenSHA256: digest(tokenAcme),
				Operator: tt.operator}})
			if err != nil {
				t.Fatal(err)
			}
		}
		status, body, _ := healthOf(t, srv, tokenAcme)
		if status != http.StatusOK || strings.Contains(body, detail) != tt.wantOperator {
			t.Errorf("%s: /v1/health: %d %s; want the detail %v", tt.name, status, body,
				tt.wantOperator)
		}
	}
}
