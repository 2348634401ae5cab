// Package broker makes a confined run's connections for it. Under a net
// grant the worker makes no socket of its own (its filter refuses
// internet sockets, connect, bind and addressed sends, and Landlock every
// TCP connect and bind): it asks its supervisor over a Unix socket the two
// share, one [Request] per connection. The supervisor's [Broker] checks
// the run's grants ([Grants], counted with their @N), looks the name up
// itself, keeps to the addresses the grant reaches ([reach.Check]), connects,
// and hands the connected socket back with SCM_RIGHTS beside its [Reply].
// A UDP grant gets a connected datagram socket.
//
// The supervisor keeps its own hold on every socket it handed over: when
// the run ends it shuts it down, so that a pooled worker keeps nothing of
// one run's connections for the next, then reads what the kernel counted
// on it (for TCP, the bytes written to it, those still queued for the
// peer among them, and the bytes that came), and lists each connection,
// and each refusal, in the receipt's observed part ([receipt.Connection]).
//
// # Trust
//
// Every request is the word of a worker whose program may hold raw system
// calls: [ParseRequest] is bounded and fuzzed, and nothing a request says
// reaches a connection unless the run's grants admit it.
//
// # Systems
//
// The broker needs SCM_RIGHTS and a filter that refuses the worker's own
// sockets: it serves Linux. Elsewhere [New] and [NewClient] fail with
// [ErrUnsupported], and a run's net grants are held as that system's
// confinement holds them.
package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/reach"
)

// MaxMessageBytes bounds a request and a reply: a host name is at most 253
// bytes, and a reply's message is clipped to fit.
const MaxMessageBytes = 1024

// HandshakeTimeout bounds one connection: the name's lookup and the
// connect to each of its addresses in turn, all together.
const HandshakeTimeout = 10 * time.Second

// MaxConnections is the most connections the supervisor makes for one
// run, and MaxOpen the most it holds open for it at once; past either, a
// request is refused (E335): a run's bounds however it connects
// (package reach).
const (
	MaxConnections = reach.MaxConnections
	MaxOpen        = reach.MaxOpen
)

// MaxRequests is the most requests, made or refused, the broker takes
// for one run; past it, each is refused (E335) unread and unlisted.
const MaxRequests = 4 * MaxConnections

// ErrUnsupported is what New and NewClient return on a system the broker
// does not serve.
var ErrUnsupported = errors.New("the connection broker serves Linux only")

// The networks a request may name.
const (
	TCP = "tcp"
	UDP = "udp"
)

// Request asks the supervisor for one connection.
type Request struct {
	// ID names the request: its reply carries it, and a client that gave
	// up on a request drops the reply that comes late.
	ID      uint64 `json:"id"`
	Network string `json:"network"` // TCP or UDP
	Host    string `json:"host"`    // as the program named it: a name or an address
	Port    int    `json:"port"`
}

// Reply answers a Request. A connection made comes with its socket
// attached; a refusal carries its code and says why.
type Reply struct {
	ID      uint64     `json:"id"`
	Address string     `json:"address,omitempty"` // the address connected to
	Code    codes.Code `json:"code,omitempty"`
	Message string     `json:"message,omitempty"`
}

// Err is the refusal r carries as a codes.Error, nil when it carries a
// connection.
func (r Reply) Err() error {
	if r.Code == "" {
		return nil
	}
	return codes.Errorf(r.Code, "%s", r.Message)
}

// ParseRequest reads one request as a worker wrote it: at most
// MaxMessageBytes of JSON with no field but a Request's, a known network,
// a host of at most 253 bytes of graphic characters (unicode.IsGraphic:
// letters, marks, numbers, punctuation and symbols) with no blank or
// slash, so that no control or format character of any script (U+009B,
// a terminal's CSI; U+202E, which shows what follows right to left)
// reaches the receipt's list, and a port from 1 to 65535. A request it
// refuses keeps its ID alone, for the refusal to answer.
func ParseRequest(b []byte) (Request, error) {
	var r Request
	if len(b) > MaxMessageBytes {
		return r, fmt.Errorf("a request of %d bytes, more than %d", len(b), MaxMessageBytes)
	}
	if err := strictJSON(b, &r); err != nil {
		return Request{}, fmt.Errorf("a request: %w", err)
	}
	switch {
	case r.Network != TCP && r.Network != UDP:
		return Request{ID: r.ID}, fmt.Errorf("network %q: want %s or %s", clip(r.Network), TCP, UDP)
	case r.Host == "" || len(r.Host) > 253:
		return Request{ID: r.ID}, fmt.Errorf("a host of %d bytes: want 1 to 253", len(r.Host))
	case strings.ContainsFunc(r.Host, func(c rune) bool {
		return !unicode.IsGraphic(c) || unicode.IsSpace(c) || c == '/'
	}):
		return Request{ID: r.ID}, fmt.Errorf("host %q has a blank, a slash, a control character or a "+
			"format character", clip(r.Host))
	case r.Port < 1 || r.Port > 65535:
		return Request{ID: r.ID}, fmt.Errorf("port %d: want 1 to 65535", r.Port)
	}
	return r, nil
}

// ParseReply reads one reply as the supervisor wrote it, bounded as a
// request is.
func ParseReply(b []byte) (Reply, error) {
	var r Reply
	if len(b) > MaxMessageBytes {
		return r, fmt.Errorf("a reply of %d bytes, more than %d", len(b), MaxMessageBytes)
	}
	if err := strictJSON(b, &r); err != nil {
		return Reply{}, fmt.Errorf("a reply: %w", err)
	}
	if r.Code != "" {
		if _, ok := codes.Info(r.Code); !ok {
			return Reply{}, fmt.Errorf("a reply with the unknown code %q", clip(string(r.Code)))
		}
	}
	return r, nil
}

// strictJSON decodes b, one JSON object with no unknown field and nothing
// after it, into v.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF { // More would take a stray '}' or ']' for the end
		return errors.New("more after the object")
	}
	return nil
}

// clip cuts s to what a message quotes of a worker's text.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// reply encodes r, its message clipped so that the whole fits in
// MaxMessageBytes.
func (r Reply) encode() []byte {
	for {
		b, err := json.Marshal(r)
		if err == nil && len(b) <= MaxMessageBytes {
			return b
		}
		r.Message = r.Message[:len(r.Message)/2]
	}
}
