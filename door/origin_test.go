package door

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestForeignOrigin: a request whose Host or Origin names a place that is
// not this server is refused 403 before its token is looked at, the
// rebinding case among them (the server's own Host, a foreign Origin);
// the controls are the server's own addresses, as Host and as Origin, and
// an origin the operator named.
func TestForeignOrigin(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken, Origins: []string{"https://app.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	own := "127.0.0.1:" + port
	bearer := "Bearer " + testToken
	tests := []struct {
		name         string
		path         string
		host, origin string // "" leaves the header out
		auth         string
		wantStatus   int
	}{
		{name: "own address", path: "/v1/health", host: own, auth: bearer, wantStatus: 200},
		{name: "localhost", path: "/v1/health", host: "localhost:" + port, auth: bearer, wantStatus: 200},
		{name: "ipv6 loopback name", path: "/v1/health", host: "[::1]:" + port, auth: bearer, wantStatus: 200},
		{name: "own origin", path: "/v1/health", host: own, origin: "http://" + own, auth: bearer, wantStatus: 200},
		{name: "localhost origin", path: "/v1/health", host: own, origin: "http://localhost:" + port, auth: bearer, wantStatus: 200},
		{name: "named origin", path: "/v1/health", host: own, origin: "https://app.example.com", auth: bearer, wantStatus: 200},
		{name: "named origin as host", path: "/v1/health", host: "app.example.com:443", auth: bearer, wantStatus: 200},
		{name: "own address without the token", path: "/v1/health", host: own, wantStatus: 401},
		{name: "foreign host", path: "/v1/health", host: "evil.example.com", auth: bearer, wantStatus: 403},
		{name: "foreign host with our port", path: "/v1/health", host: "evil.example.com:" + port, auth: bearer, wantStatus: 403},
		{name: "loopback name on another port", path: "/v1/health", host: "localhost:1", auth: bearer, wantStatus: 403},
		{name: "rebinding: own host, foreign origin", path: "/v1/health", host: own, origin: "http://evil.example.com", auth: bearer, wantStatus: 403},
		{name: "mcp from its own origin", path: "/mcp", host: own, origin: "http://" + own, auth: bearer, wantStatus: 200},
		{name: "rebinding on /mcp", path: "/mcp", host: own, origin: "http://evil.example.com", auth: bearer, wantStatus: 403},
		{name: "rebinding on /v1/run", path: "/v1/run", host: own, origin: "http://evil.example.com:" + port, auth: bearer, wantStatus: 403},
		{name: "named origin over another scheme", path: "/v1/health", host: own, origin: "http://app.example.com", auth: bearer, wantStatus: 403},
		{name: "null origin", path: "/v1/health", host: own, origin: "null", auth: bearer, wantStatus: 403},
		{name: "foreign origin before the token", path: "/v1/health", host: own, origin: "http://evil.example.com", wantStatus: 403},
		{name: "foreign host before the token", path: "/v1/run", host: "evil.example.com", wantStatus: 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method, body := http.MethodGet, ""
			if tt.path != "/v1/health" {
				method, body = http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`
			}
			req, err := http.NewRequest(method, ts.URL+tt.path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tt.host
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("Host %q, Origin %q: status %d, want %d", tt.host, tt.origin, resp.StatusCode, tt.wantStatus)
			}
		})
	}
}

// TestUncleanPathNamesThisServer: a path not in its clean form ("//",
// "." or "..") is refused for a foreign Host or Origin (403) and without
// the token (401) as every request is, and with both it names no
// endpoint (404, JSON); before, it was answered a redirect (307, HTML)
// to the clean path, to any Host, before anything was checked. Controls:
// the clean path is answered; a probe answers any Host; a run id that
// escapes ".." is read as a run id.
func TestUncleanPathNamesThisServer(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	own, bearer := "127.0.0.1:"+port, "Bearer "+testToken
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	tests := []struct {
		method, path, host, auth string
		wantStatus               int
		wantCode                 string
	}{
		{"GET", "//v1/health", "evil.example.com", "", 403, CodeForeignOrigin},
		{"GET", "/v1/../v1/health", "evil.example.com", bearer, 403, CodeForeignOrigin},
		{"GET", "/v1/./health", "evil.example.com:" + port, "", 403, CodeForeignOrigin},
		{"POST", "/healthz/../v1/run", "evil.example.com", "", 403, CodeForeignOrigin},
		{"GET", "//healthz", "evil.example.com", "", 403, CodeForeignOrigin},
		{"GET", "/v1//health", own, "", 401, CodeUnauthorized},
		{"POST", "//mcp", own, bearer, 404, CodeNotFound},
		{"GET", "/v1/receipts/../health", own, bearer, 404, CodeNotFound},
		// Controls.
		{"GET", "/v1/health", own, bearer, 200, ""},
		{"GET", "/healthz", "evil.example.com", "", 200, ""},
		{"GET", "/v1/receipts/%2e%2e", own, bearer, 400, "E301"},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = tt.host
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Error struct{ Code string } `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus || err != nil || v.Error.Code != tt.wantCode {
			t.Errorf("%s %s, Host %q: status %d (Location %q), code %q (%v); want %d, code %q",
				tt.method, tt.path, tt.host, resp.StatusCode, resp.Header.Get("Location"),
				v.Error.Code, err, tt.wantStatus, tt.wantCode)
		}
	}
}

func TestParseOrigins(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    origin
		wantErr bool
	}{
		{in: "https://app.example.com", want: origin{"app.example.com", "443"}},
		{in: "http://App.Example.com:8080/", want: origin{"app.example.com", "8080"}},
		{in: "http://[::1]:9000", want: origin{"::1", "9000"}},
		{in: "app.example.com", wantErr: true},
		{in: "ftp://app.example.com", wantErr: true},
		{in: "https://app.example.com/path", wantErr: true},
		{in: "https://user@app.example.com", wantErr: true},
		{in: "null", wantErr: true},
	} {
		got, err := parseOrigins([]string{tt.in})
		if (err != nil) != tt.wantErr || (err == nil && got[0] != tt.want) {
			t.Errorf("parseOrigins(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	if _, err := New(Config{Runner: &fakeRunner{}, Origins: []string{"example.com"}}); err == nil {
		t.Error("New took an origin without a scheme")
	}
}
