package door

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/tenant"
)

// TestReceiptReplyBounded: a client that asks for a receipt of 8 MB
// (GET /v1/receipts/{id}), or an audit whose reply is as large (POST
// /v1/audit), and reads none of it is cut off after the reply's write
// timeout: the server closes its connection, and lets go of the reply it
// held. Without the timeout the connection stays open as long as the
// client keeps it. The control: a client that reads gets the reply whole.
func TestReceiptReplyBounded(t *testing.T) {
	const pad = 8 << 20
	const audit = `{"source":"print(1)"}`
	for _, tc := range []struct {
		name         string
		method, path string // the path's %s is the run's id
		body         string
	}{
		{name: "a receipt", method: "GET", path: "/v1/receipts/%s"},
		{name: "an audit", method: "POST", path: "/v1/audit", body: audit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The door asks the runner for each receipt.
			fake := &fakeRunner{bare: true, pad: pad, auditPad: pad}
			s, err := New(Config{Runner: fake, Workers: 2, Queue: 2,
				Tenants: []tenant.Tenant{{Name: "acme", TokenSHA256: digest(tokenAcme)}}})
			if err != nil {
				t.Fatal(err)
			}
			s.replyWrite = testkit.Bound(2 * time.Second)
			// The connection of the client that reads nothing, once it is
			// made, and whether it was closed.
			var stuckAddr atomic.Value
			stuckAddr.Store("")
			stuckClosed := make(chan struct{})
			var once sync.Once
			srv := httptest.NewUnstartedServer(s.Handler())
			srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
				if st == http.StateClosed && c.RemoteAddr().String() == stuckAddr.Load().(string) {
					once.Do(func() { close(stuckClosed) })
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)

			do := func(method, path, body string) *http.Response {
				req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+tokenAcme)
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				return resp
			}
			resp := do("POST", "/v1/run", `{"source":"print(1)"}`)
			var ran struct {
				RunID string `json:"run_id"`
			}
			err = json.NewDecoder(resp.Body).Decode(&ran)
			resp.Body.Close()
			if err != nil || ran.RunID == "" {
				t.Fatalf("the run: %v, %+v", err, ran)
			}
			path := tc.path
			if strings.Contains(path, "%s") {
				path = fmt.Sprintf(path, ran.RunID)
			}

			// The control: read, the reply comes whole.
			resp = do(tc.method, path, tc.body)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK || len(body) < pad {
				t.Fatalf("a reply read: %s, %d bytes (%v); want 200 and more than %d", resp.Status,
					len(body), err, pad)
			}

			stuck, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer stuck.Close()
			stuckAddr.Store(stuck.LocalAddr().String())
			_ = stuck.(*net.TCPConn).SetReadBuffer(4096)
			if _, err := fmt.Fprintf(stuck, "%s %s HTTP/1.1\r\nHost: %s\r\n"+
				"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", tc.method, path,
				srv.Listener.Addr(), tokenAcme, len(tc.body), tc.body); err != nil {
				t.Fatal(err)
			}
			select {
			case <-stuckClosed:
			case <-time.After(testkit.Bound(time.Minute)):
				t.Fatalf("%s's reply nobody reads still holds its connection %s after a minute",
					tc.name, stuck.LocalAddr())
			}
		})
	}
}
