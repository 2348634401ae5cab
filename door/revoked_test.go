package door

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/tenant"
)

// TestMCPTenantOfItsRequest: a tools/call on /mcp runs as the tenant
// whose token the request carried when it was let in, with that tenant's
// ceiling and limits, even when the tenants are read again while its body
// is still coming (a token revoked, or rotated, by SIGHUP). Looked up
// again from the header once the body is in, the token is no tenant's
// any more, and the call ran as no tenant: the server's whole budget, no
// limit, no tenant in its receipt. The control is the same call let in
// and run with the tenants unchanged.
func TestMCPTenantOfItsRequest(t *testing.T) {
	ceiling := budget.MustParse("/", "io")
	acme := tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Allow: []string{"io"},
		Ceiling: &ceiling, Concurrency: 1}
	beta := tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta)}
	for _, revoke := range []bool{false, true} {
		fake := &fakeRunner{}
		s, _, _ := tenantServer(t, fake, acme, beta)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hs := s.HTTPServer() // its connections counted: authorized once let in
		go hs.Serve(ln)
		t.Cleanup(func() { hs.Close() })
		host := ln.Addr().String()
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run",` +
			`"arguments":{"source":"print(1)"}}}`
		head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
			"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n", host, tokenAcme, len(body))
		// The headers and the body's first byte: the request is let in,
		// and waits for the rest of its body.
		if _, err := io.WriteString(conn, head+body[:1]); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { _, authorized := s.conns.count(); return authorized == 1 })
		if revoke {
			if err := s.SetTenants([]tenant.Tenant{beta}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := io.WriteString(conn, body[1:]); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		conn.Close()
		if fake.ran.Load() != 1 {
			// Refused is as good as run as acme: it never ran as nobody.
			continue
		}
		last := fake.lastRequest()
		if last.Tenant != "acme" || last.Ceiling == nil || last.Ceiling.String() != "io" {
			t.Errorf("revoked while its body came %v: ran as tenant %q, ceiling %v, want acme's, io: %.200s",
				revoke, last.Tenant, last.Ceiling, strings.TrimSpace(string(data)))
		}
	}
}
