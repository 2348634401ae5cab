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
