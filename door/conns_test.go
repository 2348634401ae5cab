package door

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// serving is a door serving on a loopback listener the test made.
type serving struct {
	addr   string
	cancel context.CancelFunc // ends Serve
	done   chan struct{}      // closed when Serve has returned
	err    error              // what it returned
}

// serveOn starts s.Serve on a loopback listener; the server stops when
// the test ends.
func serveOn(t *testing.T, s *Server) *serving {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sv := &serving{addr: ln.Addr().String(), cancel: cancel, done: make(chan struct{})}
	go func() { sv.err = s.Serve(ctx, ln); close(sv.done) }()
	t.Cleanup(func() { cancel(); <-sv.done })
	return sv
}

// silentConns opens n connections to addr that send nothing, and waits
// until the server holds them all.
func silentConns(t *testing.T, s *Server, addr string, n int) []net.Conn {
	t.Helper()
	var cs []net.Conn
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cs = append(cs, c)
	}
	waitFor(t, func() bool { p, _ := s.conns.count(); return p >= n })
	return cs
}

// healthOn asks addr for /v1/health on a connection of its own, with the
// token, and returns the status; the client waits at most a minute.
func healthOn(t *testing.T, addr string) int {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/health", nil)
	req.Header.Set("Authorization", bearer)
	resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("a request with the token: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestSilentConnectionsTakeNoSlot: 64 connections that never send a token,
// far more than the 2 slots, do not delay a request that sends it: it is
// answered while every one of them is still open (nothing was closed to
// make room, and their header timeout is an hour away). Before, the slots
// were taken at accept, and the request waited for the silent ones to
// time out.
func TestSilentConnectionsTakeNoSlot(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.readHeaderTimeout = time.Hour
	addr := serveOn(t, s).addr
	silentConns(t, s, addr, 64)
	if got := healthOn(t, addr); got != http.StatusOK {
		t.Fatalf("a request with the token beside 64 silent connections: %d, want 200", got)
	}
	if pending, _ := s.conns.count(); pending != 64 {
		t.Errorf("%d connections pending after the request, want the 64 silent ones", pending)
	}
}

// TestPendingConnsBound: past MaxPendingConns the oldest connection that
// has not sent the token is closed by the server, and a request with the
// token is still answered; the newer silent connections stay open.
func TestPendingConnsBound(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken, MaxPendingConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	s.readHeaderTimeout = time.Hour
	addr := serveOn(t, s).addr
	cs := silentConns(t, s, addr, 8)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = cs[0].SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := cs[0].Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the oldest silent connection, one past the bound: read %v, want EOF (closed by the server)", err)
	}
	_ = cs[1].SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := cs[1].Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the second oldest: read %v, want it still open", err)
	}
	if got := healthOn(t, addr); got != http.StatusOK {
		t.Errorf("a request with the token: %d, want 200", got)
	}
}

// TestAuthorizedConnsBound: a connection that sent the token holds a slot
// while it is open; with the one slot held, a request with the token on
// another connection is busy (429), and once the first closes it is
// answered.
func TestAuthorizedConnsBound(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	held := &http.Transport{}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/health", nil)
	req.Header.Set("Authorization", bearer)
	resp, err := (&http.Client{Transport: held}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close() // the connection stays open, idle, holding its slot
	if got := healthOn(t, addr); got != http.StatusTooManyRequests {
		t.Errorf("a second connection with the one slot held: %d, want 429", got)
	}
	held.CloseIdleConnections()
	waitFor(t, func() bool { _, a := s.conns.count(); return a == 0 })
	if got := healthOn(t, addr); got != http.StatusOK {
		t.Errorf("once the first connection closed: %d, want 200", got)
	}
}

// TestRefusalClosesTheConnection: a request without the token is answered
// 401 and its connection closed, so that a client cannot hold a
// connection by sending requests the server refuses; the control, with
// the token, keeps its connection open for the next request.
func TestRefusalClosesTheConnection(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	for _, tt := range []struct {
		auth       string
		wantStatus int
		wantClosed bool
	}{{"", 401, true}, {bearer, 200, false}} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		head := "GET /v1/health HTTP/1.1\r\nHost: " + addr + "\r\n"
		if tt.auth != "" {
			head += "Authorization: " + tt.auth + "\r\n"
		}
		if _, err := io.WriteString(c, head+"\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Minute))
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus {
			t.Errorf("auth %q: %d, want %d", tt.auth, resp.StatusCode, tt.wantStatus)
		}
		if !tt.wantClosed {
			_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		}
		_, err = br.ReadByte()
		if closed := errors.Is(err, io.EOF); closed != tt.wantClosed {
			t.Errorf("auth %q: after the answer, read %v; want closed %v", tt.auth, err, tt.wantClosed)
		}
		c.Close()
	}
}
