package door

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestChunkedBodyPastTheBound: a body sent in chunks says no length, so
// the bound is held as it is read: past MaxBodyBytes the request is
// answered 413, on /v1/run and on /mcp, and nothing runs. The control is
// a chunked body within the bound, which runs.
func TestChunkedBodyPastTheBound(t *testing.T) {
	fake := &fakeRunner{}
	_, ts := newTestServer(t, Config{Runner: fake, MaxBodyBytes: 4096})
	post := func(path, body string) int {
		t.Helper()
		// A reader of no known length: the client sends it in chunks.
		req, err := http.NewRequest("POST", ts.URL+path, io.MultiReader(strings.NewReader(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength, req.TransferEncoding = -1, []string{"chunked"}
		req.Header.Set("Authorization", bearer)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	big := `{"source":"print('` + strings.Repeat("x", 8192) + `')"}`
	if got := post("/v1/run", big); got != http.StatusRequestEntityTooLarge {
		t.Errorf("/v1/run, 8 KiB in chunks: %d, want 413", got)
	}
	rpc := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":{"source":"` + strings.Repeat("x", 8192) + `"}}}`
	if got := post("/mcp", rpc); got != http.StatusRequestEntityTooLarge {
		t.Errorf("/mcp, 8 KiB in chunks: %d, want 413", got)
	}
	if n := fake.ran.Load(); n != 0 {
		t.Fatalf("%d runs past the bound, want none", n)
	}
	if got := post("/v1/run", `{"source":"print(1)"}`); got != http.StatusOK || fake.ran.Load() != 1 {
		t.Fatalf("the control, a chunked body within the bound: %d, %d runs; want 200 and one run", got, fake.ran.Load())
	}
}

// TestReplyLength: a reply says its length, so that one past the
// server's buffer (a run's, with its output and receipt) goes whole, not
// in chunks: 64 KiB of output arrive with a Content-Length that is the
// body's, and no Transfer-Encoding.
func TestReplyLength(t *testing.T) {
	fake := &fakeRunner{stdout: strings.Repeat("x", 64<<10)}
	_, ts := newTestServer(t, Config{Runner: fake})
	req, err := http.NewRequest("POST", ts.URL+"/v1/run", strings.NewReader(`{"source":"print(1)"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", bearer)
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || len(body) < 64<<10 || resp.ContentLength != int64(len(body)) ||
		len(resp.TransferEncoding) != 0 {
		t.Errorf("a reply of %d bytes: status %d, Content-Length %d, Transfer-Encoding %v; want 200, "+
			"its length and none", len(body), resp.StatusCode, resp.ContentLength, resp.TransferEncoding)
	}
}

// TestBodyCutOffNamesNoAddress: a body that does not come whole within
// the server's time bound is refused E301 (400; on /mcp a JSON-RPC error)
// in the door's words, naming no address: before, the answer quoted the
// read's error, "read tcp 127.0.0.1:PORT->127.0.0.1:PORT: i/o timeout",
// the server's address and the client's as the server saw them, which
// behind a proxy are neither the address the client named nor its own.
// The refusal is logged. The control, the same request whole, runs.
func TestBodyCutOffNamesNoAddress(t *testing.T) {
	fake := &fakeRunner{}
	var logged strings.Builder
	var mu sync.Mutex
	s, err := New(Config{Runner: fake, Token: testToken, Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&logged, f+"\n", a...)
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Start()
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	send := func(path, ctype, body string, length int) string {
		t.Helper()
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(testkit.Bound(10 * time.Second)))
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nAuthorization: %s\r\n"+
			"Content-Type: %s\r\nAccept: application/json, text/event-stream\r\n"+
			"Content-Length: %d\r\nConnection: close\r\n\r\n%s",
			path, port, bearer, ctype, length, body)
		answer, _ := io.ReadAll(c) // until the server closes, once it answered
		return string(answer)
	}
	for _, tt := range []struct{ path, ctype, body string }{
		{"/v1/run", "application/json", `{"source":"print(1)"}`},
		{"/mcp", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` +
			`{"name":"run","arguments":{"source":"print(1)"}}}`},
	} {
		cut := send(tt.path, tt.ctype, tt.body[:10], len(tt.body))
		_, local, _ := strings.Cut(cut, "\r\n\r\n")
		if !strings.HasPrefix(cut, "HTTP/1.1 400 ") ||
			!strings.Contains(cut, "could not be read") ||
			strings.Contains(local, port) || strings.Contains(local, "127.0.0.1") {
			t.Errorf("%s, a body cut off: answered %q; want 400, the body could not be read, "+
				"and no address", tt.path, cut)
		}
		if whole := send(tt.path, tt.ctype, tt.body, len(tt.body)); !strings.HasPrefix(whole,
			"HTTP/1.1 200 ") {
			t.Errorf("%s, the control, the body whole: answered %q, want 200", tt.path, whole)
		}
	}
	if n := fake.ran.Load(); n != 2 {
		t.Errorf("%d runs, want 2: the controls", n)
	}
	mu.Lock()
	defer mu.Unlock()
	const refusal = "refused: E301: the request body could not be read"
	if got := strings.Count(logged.String(), refusal); got != 2 {
		t.Errorf("%d refusals of a body cut off logged, want 2:\n%s", got, logged.String())
	}
}
