package door

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

const testToken = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"

// newTestServer starts the door's handler on a loopback httptest server.
func newTestServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts
}

// do sends one request and decodes the JSON answer.
func do(t *testing.T, ts *httptest.Server, method, path, auth, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %v: %q", method, path, err, data)
	}
	return resp, v
}

// errCode is the error code of an error answer, "" when it is none.
func errCode(v map[string]any) (code, msg string) {
	e, ok := v["error"].(map[string]any)
	if !ok {
		return "", ""
	}
	code, _ = e["code"].(string)
	msg, _ = e["message"].(string)
	return code, msg
}

const bearer = "Bearer " + testToken

func TestRunHTTP(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		auth       string
		body       string
		refuse     error
		wantStatus int
		wantCode   string
		wantMsg    string
		wantRuns   int64
	}{
		{name: "source runs", body: `{"source":"print(1)","args":["a"],"stdin":"in","allow":["io"]}`, wantStatus: 200, wantRuns: 1},
		{name: "path runs", body: `{"path":"hello.vel"}`, wantStatus: 200, wantRuns: 1},
		{name: "no token", auth: "-", body: `{"source":"print(1)"}`, wantStatus: 401, wantCode: CodeUnauthorized},
		{name: "wrong token", auth: "Bearer nope", body: `{"source":"print(1)"}`, wantStatus: 401, wantCode: CodeUnauthorized},
		{name: "token one byte short", auth: bearer[:len(bearer)-1], body: `{"source":"print(1)"}`, wantStatus: 401, wantCode: CodeUnauthorized},
		{name: "token as basic", auth: "Basic " + testToken, body: `{"source":"print(1)"}`, wantStatus: 401, wantCode: CodeUnauthorized},
		{name: "no_confine", body: `{"source":"print(1)","no_confine":true}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "confine", body: `{"source":"print(1)","confine":"none"}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "noConfine", body: `{"noConfine":true,"source":"print(1)"}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "require_confinement", body: `{"source":"print(1)","require_confinement":"none"}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "confinement", body: `{"source":"print(1)","confinement":"none"}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "CONFINE in capitals", body: `{"source":"print(1)","X_CONFINE":1}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "confine escaped", body: `{"source":"print(1)","\u0063onfine":"off"}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "confine after an unknown field", body: `{"zzz":1,"source":"print(1)","confine":"off"}`, wantStatus: 400, wantCode: "E301", wantMsg: "operator's setting"},
		{name: "unknown field", body: `{"source":"print(1)","timeout":"1h"}`, wantStatus: 400, wantCode: "E301", wantMsg: `no field "timeout"`},
		{name: "field in another case", body: `{"Source":"print(1)"}`, wantStatus: 400, wantCode: "E301", wantMsg: `no field "Source"`},
		{name: "both source and path", body: `{"source":"print(1)","path":"a.vel"}`, wantStatus: 400, wantCode: "E301", wantMsg: "both"},
		{name: "no program", body: `{"args":["a"]}`, wantStatus: 400, wantCode: "E301", wantMsg: "no program"},
		{name: "empty source", body: `{"source":""}`, wantStatus: 400, wantCode: "E301", wantMsg: "empty"},
		{name: "null", body: `{"source":"print(1)","args":null}`, wantStatus: 400, wantCode: "E301", wantMsg: "null"},
		{name: "twice", body: `{"source":"print(1)","source":"print(2)"}`, wantStatus: 400, wantCode: "E301", wantMsg: "twice"},
		{name: "trailing value", body: `{"source":"print(1)"} {}`, wantStatus: 400, wantCode: "E301"},
		{name: "not an object", body: `["print(1)"]`, wantStatus: 400, wantCode: "E301"},
		{name: "not JSON", body: `source=print(1)`, wantStatus: 400, wantCode: "E301"},
		{name: "args not strings", body: `{"source":"print(1)","args":[1]}`, wantStatus: 400, wantCode: "E301", wantMsg: "args"},
		{name: "too large", body: `{"source":"` + strings.Repeat("x", 5000) + `"}`, wantStatus: 413, wantCode: "E301"},
		{name: "budget wider than the ceiling", body: `{"source":"print(1)","allow":["fs"]}`, refuse: codes.Errorf(codes.E328, "fs is not within the ceiling"), wantStatus: 403, wantCode: "E328"},
		{name: "path outside the root", body: `{"path":"../x.vel"}`, refuse: codes.Errorf(codes.E316, "../x.vel is not under the import root"), wantStatus: 403, wantCode: "E316"},
		{name: "malformed item", body: `{"source":"print(1)","allow":["fs:frob"]}`, refuse: codes.Errorf(codes.E301, "fs:frob: no such access"), wantStatus: 400, wantCode: "E301"},
		{name: "below the required level", body: `{"source":"print(1)","allow":["net"]}`, refuse: codes.Errorf(codes.E326, "partial"), wantStatus: 403, wantCode: "E326"},
		{name: "receipts unwritable", body: `{"source":"print(1)"}`, refuse: codes.Errorf(codes.E317, "receipts"), wantStatus: 500, wantCode: "E317"},
		{name: "GET run", method: "GET", wantStatus: 405, wantCode: CodeMethod},
		{name: "no such endpoint", path: "/v1/nothing", wantStatus: 404, wantCode: CodeNotFound},
		{name: "no such endpoint without token", path: "/v1/nothing", auth: "-", wantStatus: 401, wantCode: CodeUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeRunner{refuse: tt.refuse}
			_, ts := newTestServer(t, Config{Runner: fake, Workers: 2, Queue: 2, MaxBodyBytes: 4096})
			method, path, auth := tt.method, tt.path, tt.auth
			if method == "" {
				method = "POST"
			}
			if path == "" {
				path = "/v1/run"
			}
			switch auth {
			case "":
				auth = bearer
			case "-":
				auth = ""
			}
			resp, v := do(t, ts, method, path, auth, tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d (%v)", resp.StatusCode, tt.wantStatus, v)
			}
			code, msg := errCode(v)
			if code != tt.wantCode {
				t.Errorf("code %q, want %q (%v)", code, tt.wantCode, v)
			}
			if !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("message %q, want it to say %q", msg, tt.wantMsg)
			}
			if e, ok := v["error"].(map[string]any); ok && e["do"] == nil {
				t.Errorf("error %v: want what to do (do)", e)
			}
			if got := fake.ran.Load(); got != tt.wantRuns {
				t.Errorf("%d runs, want %d", got, tt.wantRuns)
			}
			if resp.StatusCode == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
			if tt.wantStatus == 200 {
				if v["level"] != "full" || v["run_id"] != "0123456789abcdef" || v["stdout"] != "hello, world\n" {
					t.Errorf("reply %v: want level full, the run id and the output", v)
				}
				if _, ok := v["receipt"].(map[string]any); !ok {
					t.Errorf("reply %v: want the receipt", v)
				}
			}
		})
	}
}

// TestRunRequestReachesRunner checks the Runner gets what the client sent.
func TestRunRequestReachesRunner(t *testing.T) {
	fake := &fakeRunner{}
	_, ts := newTestServer(t, Config{Runner: fake})
	resp, v := do(t, ts, "POST", "/v1/run", bearer, `{"source":"print(ARGS)","args":["a","b"],"stdin":"x\n","allow":["io","clock"]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %v", resp.StatusCode, v)
	}
	got := fake.lastRequest()
	want := RunRequest{Source: "print(ARGS)", Args: []string{"a", "b"}, Stdin: "x\n", Allow: []string{"io", "clock"}}
	if got.Source != want.Source || strings.Join(got.Args, "|") != "a|b" || got.Stdin != want.Stdin || strings.Join(got.Allow, "|") != "io|clock" || got.Path != "" {
		t.Errorf("the runner got %+v, want %+v", got, want)
	}
}

func TestReceiptAndHealth(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		auth       string
		wantStatus int
		wantCode   string
	}{
		{name: "known receipt", path: "/v1/receipts/0123456789abcdef", auth: bearer, wantStatus: 200},
		{name: "unknown receipt", path: "/v1/receipts/fedcba9876543210", auth: bearer, wantStatus: 404, wantCode: "E317"},
		{name: "malformed id", path: "/v1/receipts/..%2fx", auth: bearer, wantStatus: 400, wantCode: "E301"},
		{name: "receipt without token", path: "/v1/receipts/0123456789abcdef", wantStatus: 401, wantCode: CodeUnauthorized},
		{name: "health", path: "/v1/health", auth: bearer, wantStatus: 200},
		{name: "health without token", path: "/v1/health", wantStatus: 401, wantCode: CodeUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := newTestServer(t, Config{Runner: &fakeRunner{}, Workers: 3, Queue: 5})
			do(t, ts, "POST", "/v1/run", bearer, `{"source":"print(1)"}`) // run 0123456789abcdef, this client's
			resp, v := do(t, ts, "GET", tt.path, tt.auth, "")
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d, want %d (%v)", resp.StatusCode, tt.wantStatus, v)
			}
			if code, _ := errCode(v); code != tt.wantCode {
				t.Errorf("code %q, want %q", code, tt.wantCode)
			}
			switch tt.name {
			case "known receipt":
				if v["run_id"] != "0123456789abcdef" {
					t.Errorf("receipt %v: want the stored one", v)
				}
			case "malformed id":
				if _, msg := errCode(v); !strings.Contains(msg, receipt.RunIDForm) {
					t.Errorf("message %q: want it to say what a run id is, as ValidRunID judges it", msg)
				}
			case "health":
				if v["status"] != "ok" || v["workers"] != float64(3) || v["queue"] != float64(5) || v["version"] != receipt.Version {
					t.Errorf("health %v", v)
				}
				data, _ := json.Marshal(v)
				if strings.Contains(string(data), testToken) {
					t.Errorf("health %s shows the token", data)
				}
			}
		})
	}
}

func TestAuditHTTP(t *testing.T) {
	fake := &fakeRunner{}
	_, ts := newTestServer(t, Config{Runner: fake})
	resp, v := do(t, ts, "POST", "/v1/audit", bearer, `{"source":"# allow: io\nprint(1)"}`)
	if resp.StatusCode != 200 || v["budget"] != "io" || v["here"] != "full" {
		t.Errorf("audit: %d %v", resp.StatusCode, v)
	}
	resp, v = do(t, ts, "POST", "/v1/audit", bearer, `{"source":"print(1)","confine":"off"}`)
	if code, _ := errCode(v); resp.StatusCode != 400 || code != "E301" {
		t.Errorf("audit naming confine: %d %v, want 400 E301", resp.StatusCode, v)
	}
	resp, v = do(t, ts, "POST", "/v1/audit", bearer, `{"source":"print(1)","args":[]}`)
	if code, _ := errCode(v); resp.StatusCode != 400 || code != "E301" {
		t.Errorf("audit with args: %d %v, want 400 E301", resp.StatusCode, v)
	}
	if fake.ran.Load() != 0 {
		t.Errorf("an audit ran %d programs", fake.ran.Load())
	}
}

// TestBusy fills the one worker and the one place in the queue: the next
// request is answered 429 with Retry-After, and nothing more runs.
func TestBusy(t *testing.T) {
	fake := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 4)}
	s, ts := newTestServer(t, Config{Runner: fake, Workers: 1, Queue: 1, RetryAfter: 3 * time.Second})
	var wg sync.WaitGroup
	statuses := make(chan int, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := do(t, ts, "POST", "/v1/run", bearer, `{"source":"print(1)"}`)
			statuses <- resp.StatusCode
		}()
	}
	<-fake.start // one is running
	waitFor(t, func() bool { r, q := s.gate.load(); return r == 1 && q == 1 })
	resp, v := do(t, ts, "POST", "/v1/run", bearer, `{"source":"print(1)"}`)
	if code, _ := errCode(v); resp.StatusCode != 429 || code != CodeBusy {
		t.Errorf("third request: %d %v, want 429 busy", resp.StatusCode, v)
	}
	// What holds the places now, not only the bound.
	const wantBusy = "2 places (--workers 1, --queue 1) are taken: 1 running, 1 waiting"
	if _, msg := errCode(v); !strings.Contains(msg, wantBusy) {
		t.Errorf("the busy message %q, want it to say %q", msg, wantBusy)
	}
	if got := resp.Header.Get("Retry-After"); got != "3" {
		t.Errorf("Retry-After %q, want 3", got)
	}
	// Past the bound a body is not read at all: one larger than any
	// request may be is answered busy, not too large.
	resp, v = do(t, ts, "POST", "/v1/run", bearer, strings.Repeat(" ", MaxBodyBytes+1))
	if code, _ := errCode(v); resp.StatusCode != 429 || code != CodeBusy {
		t.Errorf("an oversized body while busy: %d %v, want 429 busy before the body is read", resp.StatusCode, v)
	}
	_, hv := do(t, ts, "GET", "/v1/health", bearer, "")
	if hv["running"] != float64(1) || hv["queued"] != float64(1) {
		t.Errorf("health while busy: %v, want 1 running, 1 queued", hv)
	}
	close(fake.block)
	<-fake.start
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st != 200 {
			t.Errorf("an admitted request got %d, want 200", st)
		}
	}
	if got := fake.ran.Load(); got != 2 {
		t.Errorf("%d runs, want 2: the busy answer ran nothing", got)
	}
}

// TestShutdown stops a server with one run running and one queued: the
// running one finishes (200), the queued one is answered 503, Serve
// returns nil, and nothing new connects.
func TestShutdown(t *testing.T) {
	fake := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 4)}
	s, err := New(Config{Runner: fake, Token: testToken, Workers: 1, Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	sv := serveOn(t, s)
	url := "http://" + sv.addr
	post := func() (int, map[string]any) {
		req, _ := http.NewRequest("POST", url+"/v1/run", strings.NewReader(`{"source":"print(1)"}`))
		req.Header.Set("Authorization", bearer)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	first, second := make(chan int, 1), make(chan int, 1)
	go func() { st, _ := post(); first <- st }()
	<-fake.start
	go func() { st, _ := post(); second <- st }()
	waitFor(t, func() bool { _, q := s.gate.load(); return q == 1 })
	sv.cancel()
	if st := <-second; st != 503 {
		t.Errorf("the queued request got %d, want 503", st)
	}
	select {
	case <-sv.done:
		t.Fatalf("Serve returned (%v) while a run was running", sv.err)
	case <-time.After(100 * time.Millisecond):
	}
	close(fake.block)
	if st := <-first; st != 200 {
		t.Errorf("the running request got %d, want 200", st)
	}
	if <-sv.done; sv.err != nil {
		t.Errorf("Serve: %v, want nil", sv.err)
	}
	if st, _ := post(); st != 0 {
		t.Errorf("a request after shutdown got %d, want no connection", st)
	}
	if got := fake.ran.Load(); got != 1 {
		t.Errorf("%d runs, want 1", got)
	}
}

func TestHTTPServerBounds(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer()
	for _, b := range []struct {
		name      string
		got, most time.Duration
	}{
		{"ReadHeaderTimeout", hs.ReadHeaderTimeout, 30 * time.Second},
		{"ReadTimeout", hs.ReadTimeout, 5 * time.Minute},
		{"IdleTimeout", hs.IdleTimeout, 10 * time.Minute},
	} {
		if b.got <= 0 || b.got > b.most {
			t.Errorf("%s %v: want it set, and at most %v, so that a slow or idle client cannot hold a connection", b.name, b.got, b.most)
		}
	}
	if hs.MaxHeaderBytes <= 0 || hs.MaxHeaderBytes > 64<<10 {
		t.Errorf("MaxHeaderBytes %d: want it set, and at most 64 KiB", hs.MaxHeaderBytes)
	}
}

// TestNoTokenConfigured: a door made without a token refuses every HTTP
// request, an empty bearer included, and one whose token is blank once
// trimmed (the server trims a header's spaces and tabs, not a no-break or
// an em space: each would be the empty token the door was not given).
func TestNoTokenConfigured(t *testing.T) {
	fake := &fakeRunner{}
	s, err := New(Config{Runner: fake})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	for _, auth := range []string{"", "Bearer ", "Bearer", "Bearer \u00a0", "Bearer \u2003", "bearer \u0085"} {
		resp, v := do(t, ts, "POST", "/v1/run", auth, `{"source":"print(1)"}`)
		if resp.StatusCode != 401 {
			t.Errorf("auth %q: %d %v, want 401", auth, resp.StatusCode, v)
		}
	}
	if fake.ran.Load() != 0 {
		t.Errorf("%d runs, want 0", fake.ran.Load())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testkit.Bound(5 * time.Second)); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out waiting")
}

// TestSlowHeaders: a client that does not finish its headers within the
// header timeout is cut off, and nothing runs; a client that does is
// answered on the same server.
func TestSlowHeaders(t *testing.T) {
	fake := &fakeRunner{}
	s, err := New(Config{Runner: fake, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	s.readHeaderTimeout = 200 * time.Millisecond
	addr := serveOn(t, s).addr
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "POST /v1/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+testToken+"\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(testkit.Bound(5 * time.Second)))
	start := time.Now()
	data, _ := io.ReadAll(c) // the server closes the connection
	if waited := time.Since(start); waited > 4*time.Second {
		t.Errorf("the server held a slow client for %v", waited)
	}
	if strings.Contains(string(data), "200 OK") {
		t.Errorf("a client that never finished its headers was answered %q", data)
	}

	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/run", strings.NewReader(`{"source":"print(1)"}`))
	req.Header.Set("Authorization", bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a prompt client: %d, want 200", resp.StatusCode)
	}
	if got := fake.ran.Load(); got != 1 {
		t.Errorf("%d runs, want 1", got)
	}
}
