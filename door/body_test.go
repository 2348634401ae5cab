package door

import (
	"io"
	"net/http"
	"strings"
	"testing"
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
