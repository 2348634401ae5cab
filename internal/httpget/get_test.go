package httpget

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// server is a loopback listener that answers each connection with a
// canned response and reports the request it read.
type server struct {
	addr     string
	port     string
	requests chan string
}

// serve listens on 127.0.0.1:0 (through TLS when cfg is not nil) and
// answers every connection with reply; a nil reply holds the connection
// open without answering until the test ends.
func serve(t *testing.T, cfg *tls.Config, reply []byte) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	s := &server{addr: ln.Addr().String(), requests: make(chan string, 8)}
	_, s.port, _ = net.SplitHostPort(s.addr)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				var req strings.Builder
				for {
					l, err := br.ReadString('\n')
					req.WriteString(l)
					if err != nil || l == "\r\n" {
						break
					}
				}
				s.requests <- req.String()
				if reply == nil {
					<-done
					return
				}
				_, _ = c.Write(reply)
			}()
		}
	}()
	return s
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// selfSigned makes a certificate for the given names and loopback, and
// the pool that trusts it.
func selfSigned(t *testing.T, names ...string) (*tls.Config, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "sabline test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		DNSNames:              names,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, pool
}

const pong = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npong"

// TestGetPlain sends a GET to a loopback server and reads its answer,
// checking the request's bytes exactly.
func TestGetPlain(t *testing.T) {
	s := serve(t, nil, []byte(pong))
	resp, err := Get(context.Background(), mustURL(t, "http://"+s.addr+"/ping?q=1#frag"), Config{MaxBody: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || string(resp.Body) != "pong" || resp.Truncated {
		t.Errorf("got %d %q truncated %v, want 200 \"pong\"", resp.StatusCode, resp.Body, resp.Truncated)
	}
	want := "GET /ping?q=1 HTTP/1.1\r\nHost: " + s.addr + "\r\nUser-Agent: sabline\r\n" +
		"Accept-Encoding: identity\r\nConnection: close\r\n\r\n"
	if got := <-s.requests; got != want {
		t.Errorf("request %q, want %q", got, want)
	}
}

// TestGetBodies reads each kind of framing over a real connection.
func TestGetBodies(t *testing.T) {
	tests := []struct {
		name      string
		reply     string
		max       int64
		wantBody  string
		wantTrunc bool
	}{
		{name: "chunked", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\npo\r\n2\r\nng\r\n0\r\n\r\n", max: 100, wantBody: "pong"},
		{name: "to the close", reply: "HTTP/1.0 200 OK\r\n\r\npong", max: 100, wantBody: "pong"},
		{name: "truncated at the bound", reply: pong, max: 3, wantBody: "pon", wantTrunc: true},
		{name: "an empty path is /", reply: pong, max: 100, wantBody: "pong"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, nil, []byte(tt.reply))
			resp, err := Get(context.Background(), mustURL(t, "http://"+s.addr), Config{MaxBody: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != tt.wantBody || resp.Truncated != tt.wantTrunc {
				t.Errorf("body %q truncated %v, want %q %v", resp.Body, resp.Truncated, tt.wantBody, tt.wantTrunc)
			}
			if got := <-s.requests; !strings.HasPrefix(got, "GET / HTTP/1.1\r\n") {
				t.Errorf("request %q, want GET /", got)
			}
		})
	}
}

// TestGetTLS gets over TLS from a server with a self-signed certificate:
// trusted, it works; untrusted, for another name, or below TLS 1.2, the
// handshake is refused.
func TestGetTLS(t *testing.T) {
	cfg, pool := selfSigned(t, "localhost")
	other, otherPool := selfSigned(t, "other.example")
	old, _ := selfSigned(t, "localhost")
	old.MaxVersion = tls.VersionTLS11
	tests := []struct {
		name    string
		server  *tls.Config
		host    string
		roots   *x509.CertPool
		wantErr string
	}{
		{name: "trusted, by name", server: cfg, host: "localhost", roots: pool},
		{name: "trusted, by address", server: cfg, host: "127.0.0.1", roots: pool},
		{name: "the system's roots do not trust it", server: cfg, host: "localhost", wantErr: "certificate"},
		{name: "a certificate for another name", server: other, host: "localhost", roots: otherPool, wantErr: "localhost"},
		{name: "TLS 1.1 refused", server: old, host: "localhost", roots: pool, wantErr: "protocol version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, tt.server, []byte(pong))
			var dialed string
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				dialed = addr
				var d net.Dialer
				return d.DialContext(ctx, network, s.addr)
			}
			resp, err := Get(context.Background(), mustURL(t, "https://"+tt.host+":"+s.port+"/tls"),
				Config{Dial: dial, MaxBody: 100, RootCAs: tt.roots, Timeout: 10 * time.Second})
			if want := net.JoinHostPort(tt.host, s.port); dialed != want {
				t.Errorf("dialed %q, want %q", dialed, want)
			}
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("got %d %q, want a handshake error", resp.StatusCode, resp.Body)
				}
				if !strings.Contains(err.Error(), "TLS handshake") || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q, want a TLS handshake error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || string(resp.Body) != "pong" {
				t.Errorf("got %d %q, want 200 pong", resp.StatusCode, resp.Body)
			}
			if got := <-s.requests; !strings.Contains(got, "\r\nHost: "+tt.host+":"+s.port+"\r\n") {
				t.Errorf("request %q, want Host %s:%s", got, tt.host, s.port)
			}
		})
	}
}

// TestGetDial checks the caller's dial function is given the URL's host
// and default port, and its error is the Get's.
func TestGetDial(t *testing.T) {
	s := serve(t, nil, []byte(pong))
	tests := []struct {
		name     string
		url      string
		wantAddr string
		wantHost string
	}{
		{name: "http is port 80", url: "http://example.test/x", wantAddr: "example.test:80", wantHost: "example.test"},
		{name: "https is port 443", url: "https://example.test/x", wantAddr: "example.test:443"},
		{name: "an explicit port", url: "http://example.test:8080/x", wantAddr: "example.test:8080", wantHost: "example.test:8080"},
		{name: "IPv6 with a zone", url: "http://[fe80::1%25eth0]:81/x", wantAddr: "[fe80::1]:81", wantHost: "[fe80::1]:81"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused := errors.New("refused by the test")
			var dialed string
			_, err := Get(context.Background(), mustURL(t, tt.url), Config{MaxBody: 10,
				Dial: func(_ context.Context, network, addr string) (net.Conn, error) {
					dialed = addr
					if network != "tcp" {
						t.Errorf("network %q, want tcp", network)
					}
					return nil, refused
				}})
			if !errors.Is(err, refused) {
				t.Errorf("error %v does not wrap the dial's", err)
			}
			if dialed != tt.wantAddr {
				t.Errorf("dialed %q, want %q", dialed, tt.wantAddr)
			}
			if tt.wantHost == "" {
				return
			}
			// The positive control: the same URL through a dial that
			// reaches the server sends the Host the URL names.
			_, err = Get(context.Background(), mustURL(t, tt.url), Config{MaxBody: 10,
				Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, network, s.addr)
				}})
			if err != nil {
				t.Fatal(err)
			}
			if got := <-s.requests; !strings.Contains(got, "\r\nHost: "+tt.wantHost+"\r\n") {
				t.Errorf("request %q, want Host %s", got, tt.wantHost)
			}
		})
	}
}

// TestGetDialError checks a refused connection's error names the
// address once and keeps its cause.
func TestGetDialError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, err = Get(context.Background(), mustURL(t, "http://"+addr+"/"), Config{MaxBody: 1})
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("error %v, want a dial *net.OpError", err)
	}
	if want := "get " + addr + ": dial tcp " + addr + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q", err, want)
	}
}

// TestGetRedirectNotFollowed checks a 3xx is returned as it is and the
// place it names is not visited.
func TestGetRedirectNotFollowed(t *testing.T) {
	target := serve(t, nil, []byte(pong))
	s := serve(t, nil, []byte("HTTP/1.1 302 Found\r\nLocation: http://"+target.addr+"/\r\nContent-Length: 0\r\n\r\n"))
	resp, err := Get(context.Background(), mustURL(t, "http://"+s.addr+"/"), Config{MaxBody: 100})
	if err != nil {
		t.Fatal(err)
	}
	if loc, _ := resp.Value("Location"); resp.StatusCode != 302 || loc != "http://"+target.addr+"/" {
		t.Errorf("got %d Location %q, want the 302 itself", resp.StatusCode, loc)
	}
	<-s.requests
	select {
	case r := <-target.requests:
		t.Errorf("the redirect was followed: %q", r)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestGetTimeout checks a server that never answers is given up on at the
// timeout, and a cancelled context ends the exchange too.
func TestGetTimeout(t *testing.T) {
	s := serve(t, nil, nil)
	start := time.Now()
	_, err := Get(context.Background(), mustURL(t, "http://"+s.addr+"/"), Config{MaxBody: 100, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %v, want a deadline exceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v, want about 200ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err = Get(ctx, mustURL(t, "http://"+s.addr+"/"), Config{MaxBody: 100})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// TestGetUserInfo checks user information in the URL becomes Basic
// authorization and is not sent otherwise.
func TestGetUserInfo(t *testing.T) {
	s := serve(t, nil, []byte(pong))
	for _, tt := range []struct {
		name string
		user string
		want string
	}{
		{name: "user and password", user: "al:pw@", want: "\r\nAuthorization: Basic YWw6cHc=\r\n"},
		{name: "none", user: "", want: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Get(context.Background(), mustURL(t, "http://"+tt.user+s.addr+"/"), Config{MaxBody: 100}); err != nil {
				t.Fatal(err)
			}
			got := <-s.requests
			if tt.want == "" && strings.Contains(got, "Authorization") {
				t.Errorf("request %q has an Authorization", got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("request %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGetRefused checks what Get refuses before dialling.
func TestGetRefused(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		max     int64
		wantErr string
	}{
		{name: "ftp", url: "ftp://127.0.0.1/x", max: 1, wantErr: "want an absolute http"},
		{name: "opaque", url: "http:127.0.0.1", max: 1, wantErr: "want an absolute http"},
		{name: "no host", url: "http:///x", max: 1, wantErr: "want an ASCII host"},
		{name: "a non-ASCII host", url: "http://b\u00fccher.example/", max: 1, wantErr: "want an ASCII host"},
		{name: "no body bound", url: "http://127.0.0.1/", max: 0, wantErr: "not above zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dialed := false
			_, err := Get(context.Background(), mustURL(t, tt.url), Config{MaxBody: tt.max,
				Dial: func(context.Context, string, string) (net.Conn, error) {
					dialed = true
					return nil, errors.New("dialed")
				}})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one saying %q", err, tt.wantErr)
			}
			if dialed {
				t.Errorf("dialed before refusing")
			}
		})
	}
}

// TestGetNilConn checks a dial function that returns neither a
// connection nor an error is an error, not a panic.
func TestGetNilConn(t *testing.T) {
	_, err := Get(context.Background(), mustURL(t, "http://127.0.0.1/"), Config{MaxBody: 1,
		Dial: func(context.Context, string, string) (net.Conn, error) { return nil, nil }})
	if err == nil || !strings.Contains(err.Error(), "no connection") {
		t.Errorf("error %v, want one saying no connection", err)
	}
}
