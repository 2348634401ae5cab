package door

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/tenant"
)

// mcpCallBody is a tools/call of tool with a program to run or audit.
func mcpCallBody(tool string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `",` +
		`"arguments":{"source":"print(1)"}}}`
}

// mcpCall is a tools/call of tool over /mcp, as an HTTP request's bytes.
func mcpCall(host, token, tool string) string {
	body := mcpCallBody(tool)
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", host, token, len(body), body)
}

// TestMCPReplyHeldAndBounded: a tools/call's reply over /mcp counts
// against its tenant's concurrency while it is written, as /v1/run's
// does, and a client that reads none of it is cut off after the reply's
// write timeout, giving back its turn. Without either, a client that
// sends tools/call after tools/call whose large replies it never reads
// holds one reply in the server's memory a call (13 MB for a run that
// printed 1 MiB of control bytes), each for as long as its connection
// lasts: none is let go, and past the tenant's concurrency. Each tool
// holds its reply so: run, and audit, which reads a program too.
func TestMCPReplyHeldAndBounded(t *testing.T) {
	const big = 8 << 20 // a reply past what the sockets buffer
	for _, tc := range []struct {
		tool  string
		fake  *fakeRunner
		calls func(*fakeRunner) int64 // the calls answered
		ok    string                  // in a reply read whole
	}{
		{tool: "run", fake: &fakeRunner{stdout: strings.Repeat("a", big)},
			calls: func(f *fakeRunner) int64 { return f.ran.Load() }, ok: `"status":"ok"`},
		{tool: "audit", fake: &fakeRunner{auditPad: big},
			calls: func(f *fakeRunner) int64 { return f.audited.Load() }, ok: `"here":"full"`},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			fake := tc.fake
			s, ts, _ := tenantServer(t, fake,
				tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Concurrency: 1})
			s.replyWrite = testkit.Bound(2 * time.Second)
			host := ts.Listener.Addr().String()

			stuck, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			defer stuck.Close()
			_ = stuck.(*net.TCPConn).SetReadBuffer(4096)
			if _, err := io.WriteString(stuck, mcpCall(host, tokenAcme, tc.tool)); err != nil {
				t.Fatal(err)
			}
			// The reply has begun (its status line is read, little else):
			// the tool has returned, and its reply is being written.
			_ = stuck.SetReadDeadline(time.Now().Add(testkit.Bound(time.Minute)))
			if line, err := bufio.NewReader(stuck).ReadString('\n'); err != nil ||
				!strings.HasPrefix(line, "HTTP/1.1 200") {
				t.Fatalf("the unread reply begins %q (%v), want 200", line, err)
			}
			if n := tc.calls(fake); n != 1 {
				t.Fatalf("%d calls answered before the reply began, want 1", n)
			}

			// call sends a tools/call on a connection of its own and reads
			// its whole answer.
			call := func() string {
				_, data := postMCP(t, ts.URL, "Bearer "+tokenAcme, mcpCallBody(tc.tool))
				return string(data)
			}
			if got := call(); !strings.Contains(got, CodeConcurrencyLimit) {
				t.Errorf("a call while the tenant's one reply is still being written: %.300s, want %s",
					got, CodeConcurrencyLimit)
			}
			// The reply nobody reads is cut off after its write timeout,
			// and its turn given back: the tenant calls again.
			deadline := time.Now().Add(testkit.Bound(time.Minute)) // a 16 MB reply is slow to encode under -race
			for {
				got := call()
				if !strings.Contains(got, `"isError":true`) && strings.Contains(got, tc.ok) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the unread reply still holds the tenant's turn: %.300s", got)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if n := tc.calls(fake); n != 2 {
				t.Errorf("%d calls answered, want 2", n)
			}
		})
	}
}

// TestReceiptResourcesPrivate: a client's receipts, and the list of
// them, are its own, and say so to caches: cacheScope private, never the
// SDK's default public, which lets any intermediary serve one client's
// receipt to another asking for the same URI. The control, tools/list,
// the same for every client, is left public.
func TestReceiptResourcesPrivate(t *testing.T) {
	fake := &fakeRunner{}
	_, ts := newTestServer(t, Config{Runner: fake})
	cs := connectHTTP(t, ts, testToken)
	id := runMCP(t, cs)
	ctx := context.Background()
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ReceiptURIPrefix + id})
	if err != nil {
		t.Fatal(err)
	}
	if read.CacheScope != "private" {
		t.Errorf("resources/read of the client's receipt: cacheScope %q, want private", read.CacheScope)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if list.CacheScope != "private" {
		t.Errorf("resources/list of the client's receipts: cacheScope %q, want private", list.CacheScope)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tools.CacheScope != "public" {
		t.Errorf("tools/list: cacheScope %q, want the default, public", tools.CacheScope)
	}
}
