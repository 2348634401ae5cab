package door

import (
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestHeaderBound: a request's head (its request line and headers, as
// docs/serve.md counts them) is at most MaxHeaderBytes. A head of exactly
// MaxHeaderBytes is answered (the control); one a byte longer is refused,
// 431. Before, net/http read 4096 bytes past its MaxHeaderBytes, and the
// server took heads of up to 20 KiB where the page says 16.
func TestHeaderBound(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = s.HTTPServer()
	ts.Start()
	defer ts.Close()
	addr := ts.Listener.Addr().String()
	send := func(size int) string {
		t.Helper()
		head := fmt.Sprintf("GET /v1/health HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n"+
			"Connection: close\r\n", addr, bearer)
		const pad, end = "X-Pad: ", "\r\n\r\n"
		head += pad + strings.Repeat("a", size-len(head)-len(pad)-len(end)) + end
		if len(head) != size {
			t.Fatalf("a head of %d bytes, want %d", len(head), size)
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(testkit.Bound(10 * time.Second)))
		if _, err := io.WriteString(c, head); err != nil {
			t.Fatal(err)
		}
		answer, _ := io.ReadAll(c) // until the server closes, once it answered
		status, _, _ := strings.Cut(string(answer), "\r\n")
		return status
	}
	if got := send(MaxHeaderBytes); got != "HTTP/1.1 200 OK" {
		t.Errorf("a head of %d bytes: %q, want 200", MaxHeaderBytes, got)
	}
	for _, size := range []int{MaxHeaderBytes + 1, MaxHeaderBytes + 4096} {
		if got := send(size); !strings.HasPrefix(got, "HTTP/1.1 431 ") {
			t.Errorf("a head of %d bytes: %q, want 431", size, got)
		}
	}
}
