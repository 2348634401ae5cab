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
// (GET /v1/receipts/{id}) and reads none of it is cut off after the
// reply's write timeout: the server closes its connection, and lets go of
// the reply it held. Without the timeout the connection stays open as
// long as the client keeps it. The control: a client that reads gets the
// receipt whole.
func TestReceiptReplyBounded(t *testing.T) {
	const pad = 8 << 20
	fake := &fakeRunner{bare: true, pad: pad} // the door asks the runner for each receipt
	s, err := New(Config{Runner: fake, Workers: 2, Queue: 2,
		Tenants: []tenant.Tenant{{Name: "acme", TokenSHA256: digest(tokenAcme)}}})
	if err != nil {
		t.Fatal(err)
	}
	s.replyWrite = testkit.Bound(2 * time.Second)
	// The connection of the client that reads nothing, once it is made,
	// and whether it was closed.
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

	get := func(path string) *http.Response {
		req, err := http.NewRequest("GET", srv.URL+path, nil)
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
	req, err := http.NewRequest("POST", srv.URL+"/v1/run", strings.NewReader(`{"source":"print(1)"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+tokenAcme)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var ran struct {
		RunID string `json:"run_id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&ran)
	resp.Body.Close()
	if err != nil || ran.RunID == "" {
		t.Fatalf("the run: %v, %+v", err, ran)
	}

	// The control: read, the receipt comes whole.
	resp = get("/v1/receipts/" + ran.RunID)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(body) < pad {
		t.Fatalf("a receipt read: %s, %d bytes (%v); want 200 and more than %d", resp.Status,
			len(body), err, pad)
	}

	stuck, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	stuckAddr.Store(stuck.LocalAddr().String())
	_ = stuck.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := fmt.Fprintf(stuck, "GET /v1/receipts/%s HTTP/1.1\r\nHost: %s\r\n"+
		"Authorization: Bearer %s\r\n\r\n", ran.RunID, srv.Listener.Addr(), tokenAcme); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stuckClosed:
	case <-time.After(testkit.Bound(time.Minute)):
		t.Fatalf("a receipt's reply nobody reads still holds its connection %s after a minute",
			stuck.LocalAddr())
	}
}
