package door

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// bigCallBody is a tools/call of run whose body passes freeBodyBytes:
// a short program and a long comment.
func bigCallBody() string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run",` +
		`"arguments":{"source":"print(1)\n#` + strings.Repeat("x", 2*freeBodyBytes) + `"}}}`
}

// mcpHead is the head of a POST to /mcp whose body is n bytes.
func mcpHead(host, token string, n int) string {
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n", host, token, n)
}

// TestMCPBodyTakesAPlace: a body on /mcp past freeBodyBytes takes a place
// at the gate before the rest of it is read, as a body on /v1/run does,
// so that --workers and --queue bound the bodies held in memory. Before,
// /mcp read every body (up to 17 MiB) with no place: 40 bodies held one
// byte short took 776 MB of a real server's memory, and 1,024 connections
// could take 17 GiB. Two bodies held short fill a gate of two places; a
// third large call is answered 429 busy, while a small message is still
// answered (a cancel must get through). The controls: on a gate of one
// place a large call runs (its run takes its body's place on, never a
// second one), and a held body, once finished, runs.
func TestMCPBodyTakesAPlace(t *testing.T) {
	fake := &fakeRunner{}
	one, err := New(Config{Runner: fake, Token: testToken, Workers: 1, Queue: 0})
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + serveOn(t, one).addr
	if resp, data := postMCP(t, url, "Bearer "+testToken, bigCallBody()); resp.StatusCode != 200 ||
		!strings.Contains(string(data), `"status":"ok"`) {
		t.Fatalf("a large call on a gate of one place: %d %.300s, want its run", resp.StatusCode, data)
	}

	s, err := New(Config{Runner: fake, Token: testToken, Workers: 1, Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	url = "http://" + addr
	body := bigCallBody()
	half := freeBodyBytes + freeBodyBytes/2 // past what is read free, short of the whole
	var held []*rawConn
	for range 2 {
		rc := dialRaw(t, addr)
		if _, err := io.WriteString(rc.c, mcpHead(addr, testToken, len(body))+body[:half]); err != nil {
			t.Fatal(err)
		}
		held = append(held, rc)
	}
	deadline := time.Now().Add(testkit.Bound(5 * time.Second))
	for {
		s.gate.mu.Lock()
		admitted := s.gate.admitted
		s.gate.mu.Unlock()
		if admitted == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("two bodies on /mcp held short: %d places taken at the gate, want 2: "+
				"the bodies are read with no place, bounded by nothing", admitted)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if resp, data := postMCP(t, url, "Bearer "+testToken, body); resp.StatusCode != 429 ||
		!strings.Contains(string(data), CodeBusy) || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a third large call beside two held bodies: %d %.300s, want 429 busy with "+
			"Retry-After", resp.StatusCode, data)
	}
	small := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if resp, data := postMCP(t, url, "Bearer "+testToken, small); resp.StatusCode != 200 ||
		!strings.Contains(string(data), `"run"`) {
		t.Errorf("a small message beside two held bodies: %d %.300s, want the tools",
			resp.StatusCode, data)
	}
	// The first held body, finished, runs in its place.
	rc := held[0]
	if _, err := io.WriteString(rc.c, body[half:]); err != nil {
		t.Fatal(err)
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(testkit.Bound(time.Minute)))
	resp, err := http.ReadResponse(rc.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(data), `"status":"ok"`) {
		t.Errorf("a held body, finished: %d %.300s, want its run", resp.StatusCode, data)
	}
	held[1].c.Close()
	waitFor(t, func() bool { s.gate.mu.Lock(); defer s.gate.mu.Unlock(); return s.gate.admitted == 0 })
	if resp, data := postMCP(t, url, "Bearer "+testToken, body); resp.StatusCode != 200 ||
		!strings.Contains(string(data), `"status":"ok"`) {
		t.Errorf("a large call once the bodies are gone: %d %.300s, want its run",
			resp.StatusCode, data)
	}
}
