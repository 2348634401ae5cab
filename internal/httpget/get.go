// Package httpget is Sabline's HTTP client: one GET over HTTP/1.1, or
// HTTP/1.1 over TLS 1.2 or later for https, on a connection the caller's
// dial function opens (so the caller judges the host and port first and
// the connection goes nowhere else: no proxy, no redirect followed, a 3xx
// response is returned as it is), with the response read whole and
// bounded: its head by MaxFields and MaxHeadBytes, its body by the
// caller's maximum. Its response reader accepts only what it knows
// (HTTP/1.0 and HTTP/1.1 status lines, the chunked transfer coding, one
// Content-Length) and refuses anything else with an error wrapping
// ErrMalformed or ErrTooLarge.
package httpget

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// DialFunc opens a connection to address, a host and port joined by
// net.JoinHostPort, on network "tcp". Its context carries the exchange's
// deadline.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Config is what one Get needs besides the URL.
type Config struct {
	// Dial opens the connection; nil dials with a net.Dialer.
	Dial DialFunc
	// Timeout bounds the whole exchange, from the dial to the body's last
	// byte; zero leaves only the context's deadline.
	Timeout time.Duration
	// MaxBody is the most bytes of body read; past it the response is
	// Truncated. It must be above zero.
	MaxBody int64
	// RootCAs verifies an https server; nil is the system's roots.
	RootCAs *x509.CertPool
	// UserAgent is sent as User-Agent; empty is "sabline".
	UserAgent string
}

// Get sends GET u and reads the response whole. u must be an absolute
// http or https URL with an ASCII host; its user information, if any, is
// sent as Basic authorization and its fragment is not sent. The port is
// u's, else 80 for http and 443 for https. Errors name the step that
// failed and wrap its cause (the dial's, TLS's, the connection's or the
// response reader's).
func Get(ctx context.Context, u *url.URL, cfg Config) (*Response, error) {
	if cfg.MaxBody <= 0 {
		return nil, fmt.Errorf("get: body bound %d not above zero", cfg.MaxBody)
	}
	req, host, addr, err := request(u, cfg.UserAgent)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	dial := cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	c, err := dial(ctx, "tcp", addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, fmt.Errorf("get %s: %w", addr, err) // it says "dial tcp" itself
		}
		return nil, fmt.Errorf("get %s: dial: %w", addr, err)
	}
	if c == nil {
		return nil, fmt.Errorf("get %s: dial: no connection and no error", addr)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		if err := c.SetDeadline(dl); err != nil {
			return nil, fmt.Errorf("get %s: set deadline: %w", addr, err)
		}
	}
	// A context cancelled before its deadline ends the exchange too.
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	var conn net.Conn = c
	if u.Scheme == "https" {
		tc := tls.Client(c, &tls.Config{
			ServerName: host,
			RootCAs:    cfg.RootCAs,
			MinVersion: tls.VersionTLS12,
			NextProtos: []string{"http/1.1"},
		})
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, fmt.Errorf("get %s: TLS handshake: %w", addr, ctxErr(ctx, err))
		}
		conn = tc
	}
	if _, err := conn.Write(req); err != nil {
		return nil, fmt.Errorf("get %s: write request: %w", addr, ctxErr(ctx, err))
	}
	resp, err := ReadResponse(bufio.NewReader(conn), cfg.MaxBody)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", addr, ctxErr(ctx, err))
	}
	return resp, nil
}

// ctxErr adds the context's error to an error its deadline or
// cancellation caused, so that both can be tested for.
func ctxErr(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if cerr == nil && errors.Is(err, os.ErrDeadlineExceeded) {
		// The connection's deadline may pass before the context's timer.
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			cerr = context.DeadlineExceeded
		}
	}
	if cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%w)", err, cerr)
	}
	return err
}

// request builds the request's bytes, and returns them with the host
// (no brackets, no zone) and the address to dial.
func request(u *url.URL, agent string) (req []byte, host, addr string, err error) {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" {
		return nil, "", "", fmt.Errorf("get: want an absolute http:// or https:// URL")
	}
	host = u.Hostname()
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i] // an IPv6 zone is the dialer's, not the server's
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	hostHeader := u.Host
	if i := strings.IndexByte(hostHeader, '%'); i >= 0 {
		if j := strings.IndexByte(hostHeader, ']'); j > i {
			hostHeader = hostHeader[:i] + hostHeader[j:]
		}
	}
	target := u.RequestURI()
	if agent == "" {
		agent = "sabline"
	}
	if host == "" || !visible(hostHeader) || !visible(target) || !visible(agent[:1]) ||
		!printable(agent) {
		return nil, "", "", fmt.Errorf("get %q: want an ASCII host and target without spaces or "+
			"control bytes", u.Redacted())
	}
	var b strings.Builder
	b.WriteString("GET " + target + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nUser-Agent: " + agent +
		"\r\n")
	if u.User != nil {
		pw, _ := u.User.Password()
		b.WriteString("Authorization: Basic " +
			base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)) + "\r\n")
	}
	b.WriteString("Accept-Encoding: identity\r\nConnection: close\r\n\r\n")
	return []byte(b.String()), host, net.JoinHostPort(host, port), nil
}

// visible reports whether s is non-empty visible ASCII.
func visible(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// printable reports whether s is visible ASCII and spaces.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
