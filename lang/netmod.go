package lang

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/httpget"
	"github.com/sabline/sabline/internal/reach"
)

// dialTimeout bounds a connection attempt, and an HTTP GET whole (from the
// dial to the body's last byte); the run's own --timeout bounds the run.
const dialTimeout = 10 * time.Second

// maxBody is the most an HTTP GET reads of a response body.
const maxBody = 16 << 20

// resolver looks a name up for a run that dials for itself (no
// Config.Dial: a run in the caller's process, or a worker on a system with
// no broker): in /etc/hosts, then over TCP to the name servers of
// /etc/resolv.conf, never over UDP, so that names resolve the same way
// under every net grant, UDP granted or not. A confined worker on Linux
// looks no name up: its supervisor does, for each connection it makes for
// the run (internal/broker).
var resolver = &net.Resolver{
	PreferGo: true,
	Dial:     overTCP((&net.Dialer{Timeout: dialTimeout}).DialContext),
}

// overTCP returns a resolver's dial that reaches each name server with
// dial over TCP, whatever network the resolver asks for: Go's resolver
// then speaks DNS over the stream (RFC 7766), as it does after a
// truncated answer.
func overTCP(dial httpget.DialFunc) httpget.DialFunc {
	return func(ctx context.Context, _, address string) (net.Conn, error) {
		return dial(ctx, "tcp", address)
	}
}

// dialer opens the connections of a run with no Config.Dial, its names
// looked up by resolver.
var dialer = &net.Dialer{Timeout: dialTimeout, Resolver: resolver}

// dialLocal is the thread-local name of the run's DialFunc, which host
// modules, built with no Interp, take from the thread that calls them.
const dialLocal = "sabline.dial"

// DialOf is the DialFunc of the run t belongs to: its Config.Dial (in a
// confined worker, the supervisor's broker), or a dial of the run's own for
// a thread no Interp made. A host module that makes connections dials
// through it, as Sabline's own do, so that its connections are made, and
// listed, as the run's are; one that makes its own sockets is refused them
// by a confined worker's filter.
func DialOf(t *starlark.Thread) DialFunc {
	if d, ok := t.Local(dialLocal).(DialFunc); ok && d != nil {
		return d
	}
	return dialer.DialContext
}

// dialed opens a connection with dial within dialTimeout, or until ctx
// is done.
func dialed(ctx context.Context, dial DialFunc, network, address string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	return dial(ctx, network, address)
}

// fetch is an HTTP GET of u under dialTimeout, or until ctx is done, its
// connection opened by dial: a body that goes on past maxBody is an
// error, never a body cut short that a program would take for the whole.
func fetch(ctx context.Context, u *url.URL, dial httpget.DialFunc) (*httpget.Response, error) {
	resp, err := httpget.Get(ctx, u,
		httpget.Config{Dial: dial, Timeout: dialTimeout, MaxBody: maxBody})
	if err == nil && resp.Truncated {
		return nil, fmt.Errorf("the body is longer than %d bytes", maxBody)
	}
	return resp, err
}

func (in *Interp) netModule() *starlarkstruct.Module {
	return module("net", map[string]builtinFn{
		"connect": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			return in.dial(b, args, kwargs, false)
		},
		"udp": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			return in.dial(b, args, kwargs, true)
		},
		"http_get": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var raw string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &raw); err != nil {
				return nil, err
			}
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
				return nil, fmt.Errorf("%s: want an http:// or https:// URL, got %q", b.Name(), raw)
			}
			port := 80
			if u.Scheme == "https" {
				port = 443
			}
			if p := u.Port(); p != "" {
				// As net.connect: a port that no connection can have is
				// the program's error, before any grant is charged.
				if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
					return nil, fmt.Errorf("%s: port must be from 1 to 65535, got %s", b.Name(), p)
				}
			}
			dial, err := in.netCheck(budget.Effect{Kind: budget.Net, Host: u.Hostname(), Port: port})
			if err != nil {
				return nil, err
			}
			// Redirects are not followed: each host is a grant of its own.
			// No proxy from the environment either: the connection goes to
			// the host and port the budget checked, whatever the dial is
			// asked for.
			checked := net.JoinHostPort(u.Hostname(), strconv.Itoa(port))
			resp, err := fetch(in.halted, u, func(ctx context.Context, network, _ string) (net.Conn,
				error) {
				return dial(ctx, network, checked)
			})
			if err != nil {
				return nil, in.netError("net.http_get "+raw, err)
			}
			return starlarkstruct.FromStringDict(starlark.String("response"), starlark.StringDict{
				"status": starlark.MakeInt(resp.StatusCode),
				"body":   starlark.String(resp.Body),
			}), nil
		},
	})
}

// dial is net.connect(host, port), a TCP connection, and with udp
// net.udp(host, port), a UDP socket connected to host and port: each
// send is one datagram to it, and each recv one datagram from it, cut at
// n bytes. Either is checked against the budget's net grants of its
// protocol first.
func (in *Interp) dial(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple,
	udp bool) (starlark.Value, error) {
	var host string
	var port int
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &host, &port); err != nil {
		return nil, err
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("%s: port must be from 1 to 65535, got %d", b.Name(), port)
	}
	dial, err := in.netCheck(budget.Effect{Kind: budget.Net, UDP: udp, Host: host, Port: port})
	if err != nil {
		return nil, err
	}
	network, address := "tcp", net.JoinHostPort(host, strconv.Itoa(port))
	if udp {
		network = "udp"
	}
	c, err := dialed(in.halted, dial, network, address)
	if err != nil {
		return nil, in.netError(fmt.Sprintf("%s %s:%d", b.Name(), host, port), err)
	}
	// A stop ends a send or a recv that waits on the peer: its deadline
	// passes at once.
	unhalt := context.AfterFunc(in.halted, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	opened := &conn{in: in, c: c, name: address, unhalt: unhalt}
	if in.open == nil {
		in.open = map[*conn]struct{}{}
	}
	in.open[opened] = struct{}{}
	return opened, nil
}

// closeOpen closes every connection of the run still open.
func (in *Interp) closeOpen() {
	for c := range in.open {
		c.close()
	}
}

// netCheck asks the budget for the connection e, charges the grant that
// covers it, and returns the dial to open it with: the run's Config.Dial
// (a confined worker's broker, which holds the addresses itself), or,
// for a run that dials itself, one that holds a grant naming the host to
// the addresses that name may lead to (reachDial), as the broker does, so
// that a grant reaches the same addresses whichever connects. A grant of
// any host reaches any address, as it says.
func (in *Interp) netCheck(e budget.Effect) (DialFunc, error) {
	i, err := in.find(e)
	if err != nil {
		return nil, err
	}
	in.charge(i)
	if in.ownDial && i >= 0 && in.meter.Matched(i).Host != "" {
		return in.counted(reachDial), nil
	}
	if in.ownDial {
		return in.counted(in.dialFunc), nil
	}
	return in.dialFunc, nil
}

// counted is dial for a run that dials itself, held to the bounds a
// confined worker's supervisor holds a run to (reach.MaxConnections,
// reach.MaxOpen): past either, E335, as the broker says it. Without
// them, a run under --no-confine would hold connections until its
// supervisor stopped it for the descriptors it held (E330, which names
// the private temporary directory), and a run in the caller's process
// would hold the caller's descriptors (TestOwnDialBounded).
func (in *Interp) counted(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		if in.made >= reach.MaxConnections || len(in.open) >= reach.MaxOpen {
			return nil, codes.Errorf(codes.E335, "the run holds %d connections and has made %d: "+
				"a run makes at most %d, %d at once", len(in.open), in.made, reach.MaxConnections,
				reach.MaxOpen)
		}
		c, err := dial(ctx, network, address)
		if err == nil {
			in.made++
		}
		return c, err
	}
}

// reachDial opens a connection of the language's own for a run that
// dials itself (no Config.Dial: in the caller's own process, under
// --no-confine, on a system with no broker) to a host a grant names: the
// host is looked up with resolver (an address is taken as it is), and
// only the addresses a grant of that name reaches (reach.Check: a name's
// public addresses but this machine's own, localhost's loopback ones) are
// dialled, in their order. Under a grant of a name that answers with a loopback or
// a private address, a run that dialled itself once connected there,
// where the same run confined was refused (E335).
func reachDial(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, codes.Errorf(codes.E315, "look up %s: %v", host, err)
	}
	n, _ := strconv.Atoi(port) // the grant's, checked before
	if addrs, err = reach.Check(network, host, n, addrs); err != nil {
		return nil, err
	}
	d := heldDialer(*dialer, reach.Control(host)) // routed here from the port it takes
	var last error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// heldDialer is d whose Control calls held too, after its own, where held
// is not nil: reach.Control, which refuses a connection the kernel routes
// to this machine from the port it takes.
func heldDialer(d net.Dialer,
	held func(network, address string, c syscall.RawConn) error) *net.Dialer {
	own := d.Control
	if held != nil {
		d.Control = func(network, address string, c syscall.RawConn) error {
			if own != nil {
				if err := own(network, address, c); err != nil {
					return err
				}
			}
			return held(network, address, c)
		}
	}
	return &d
}

// conn is an open connection a program holds. Its methods are send(data),
// recv(n) and close(); recv returns "" at the end of the stream.
type conn struct {
	in     *Interp // nil for a host module's connection: its errors are its own
	c      net.Conn
	name   string
	closed bool
	unhalt func() bool // stops the run's stop from ending c; nil for a host module's
}

var _ starlark.HasAttrs = (*conn)(nil)

func (c *conn) String() string        { return "<connection " + c.name + ">" }
func (c *conn) Type() string          { return "connection" }
func (c *conn) Freeze()               {}
func (c *conn) Truth() starlark.Bool  { return !starlark.Bool(c.closed) }
func (c *conn) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: connection") }
func (c *conn) AttrNames() []string   { return []string{"close", "recv", "send"} }

func (c *conn) Attr(name string) (starlark.Value, error) {
	switch name {
	case "send":
		return starlark.NewBuiltin("send", func(_ *starlark.Thread, b *starlark.Builtin,
			args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var data starlark.Value
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &data); err != nil {
				return nil, err
			}
			s, err := text(data)
			if err != nil {
				return nil, fmt.Errorf("send: %w", err)
			}
			n, err := io.WriteString(c.c, s)
			if err != nil {
				return nil, c.fail("send to "+c.name, err)
			}
			return starlark.MakeInt(n), nil
		}), nil
	case "recv":
		return starlark.NewBuiltin("recv", func(_ *starlark.Thread, b *starlark.Builtin,
			args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			n := 65536
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0, &n); err != nil {
				return nil, err
			}
			if n < 1 || n > 1<<20 {
				return nil, fmt.Errorf("recv: n must be from 1 to 1048576, got %d", n)
			}
			buf := make([]byte, n)
			k, err := c.c.Read(buf)
			if err != nil && err != io.EOF {
				return nil, c.fail("recv from "+c.name, err)
			}
			return starlark.String(buf[:k]), nil
		}), nil
	case "close":
		return starlark.NewBuiltin("close", func(_ *starlark.Thread, b *starlark.Builtin,
			args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			c.close()
			return starlark.None, nil
		}), nil
	}
	return nil, nil
}

// netError is the error of a connection that failed: the supervisor's
// refusal as it said it (its code kept), or E315, or E319 for a refusal of
// the kernel's.
func (in *Interp) netError(what string, err error) error {
	var e *codes.Error
	if errors.As(err, &e) {
		return &codes.Error{Code: e.Code, Msg: what + ": " + e.Msg, Err: err, Do: e.Do}
	}
	return in.osError(codes.E315, what, err)
}

// close closes c, once: closing twice or after a reset is not the
// program's concern.
func (c *conn) close() {
	if c.closed {
		return
	}
	c.closed = true
	if c.unhalt != nil {
		c.unhalt()
	}
	_ = c.c.Close()
	if c.in != nil {
		delete(c.in.open, c)
	}
}

func (c *conn) fail(what string, err error) error {
	if c.in == nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return c.in.osError(codes.E315, what, err)
}
