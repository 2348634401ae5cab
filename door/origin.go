package door

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/sabline/sabline/codes"
)

// CodeForeignOrigin is the code of a request refused because its Host or
// Origin names a place that is not this server (403): a page another
// site served, reaching a server on this machine through a name that
// resolves here (DNS rebinding).
const CodeForeignOrigin = "foreign-origin"

// foreignOriginDo is what to do about a request refused for its Host or
// Origin.
const foreignOriginDo = "Send the request to the address the server listens on (Host), from no " +
	"page or one the operator named with --allow-origin ORIGIN; nothing ran."

// origin is a place a request may come from: a scheme's host and port, as
// an Origin header names them (the port filled in from the scheme).
type origin struct {
	host, port string // host lower case, without brackets
}

// parseOrigins reads the operator's origins: each scheme://host[:port],
// the scheme http or https, nothing after the port.
func parseOrigins(list []string) ([]origin, error) {
	var out []origin
	for _, s := range list {
		o, ok := parseOrigin(s)
		if !ok {
			return nil, fmt.Errorf("origin %q: want http://HOST[:PORT] or https://HOST[:PORT], nothing "+
				"after", s)
		}
		out = append(out, o)
	}
	return out, nil
}

// parseOrigin reads an Origin header's value.
func parseOrigin(s string) (origin, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return origin{}, false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return origin{host: strings.ToLower(u.Hostname()), port: port}, true
}

// parseHost reads a Host header's value: host[:port], port 80 when left
// out (the door speaks plain HTTP); an IPv6 host in brackets.
func parseHost(s string) (origin, bool) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if strings.Contains(strings.Trim(s, "[]"), "[") ||
			(strings.Contains(s, ":") && !strings.HasPrefix(s, "[")) {
			return origin{}, false
		}
		host, port = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), "80"
	}
	if host == "" || port == "" {
		return origin{}, false
	}
	return origin{host: strings.ToLower(host), port: port}, true
}

// loopbackNames are the names a request to a loopback listener may give
// as its host.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// ours reports whether o names this server as reached through the local
// address local (the listener's address the connection came in on): that
// address itself, a loopback name when it is a loopback address, or one of
// the operator's origins.
func (s *Server) ours(o origin, local net.Addr) bool {
	for _, a := range s.origins {
		if a == o {
			return true
		}
	}
	if local == nil {
		return false
	}
	lhost, lport, err := net.SplitHostPort(local.String())
	if err != nil || o.port != lport {
		return false
	}
	if ip := net.ParseIP(lhost); ip != nil && ip.IsLoopback() {
		for _, n := range loopbackNames {
			if o.host == n {
				return true
			}
		}
	}
	return o.host == strings.ToLower(lhost)
}

// sameOrigin refuses, 403, a request whose Host, or whose Origin when it
// has one, does not name this server; before anything else, the token
// among them, is looked at.
func (s *Server) sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		host, ok := parseHost(r.Host)
		if !ok || !s.ours(host, local) {
			s.refuseOrigin(w,
				fmt.Sprintf("the request's Host %q is not an address of this server",
					codes.Clip(r.Host, 256)))
			return
		}
		if values, sent := r.Header["Origin"]; sent {
			o, ok := parseOrigin(strings.Join(values, ","))
			if !ok || !s.ours(o, local) {
				s.refuseOrigin(w,
					fmt.Sprintf("the request's Origin %q is not this server or an origin its operator named",
						codes.Clip(strings.Join(values, ","), 256)))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) refuseOrigin(w http.ResponseWriter, msg string) {
	s.refused(context.Background(), "http", nil, CodeForeignOrigin, "", msg)
	w.Header().Set("Connection", "close")
	writeError(w, http.StatusForbidden,
		errorDetail{Code: CodeForeignOrigin, Message: msg, Do: foreignOriginDo})
}
