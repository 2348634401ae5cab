package door

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
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
// a token's holder reads the detail on /v1/health, and the log has the
// whole error. An error of no known reason is "other". The control:
// the same server ready once Ready says so.
func TestReadyReasons(t *testing.T) {
	const detail = "the detail a token's holder reads"
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
