package lang

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/reach"
	"github.com/sabline/sabline/internal/testkit"
	"golang.org/x/net/dns/dnsmessage"
)

// dnsOverTCP starts a name server on a loopback TCP port that answers
// every A question with addr, and returns its address.
func dnsOverTCP(t *testing.T, addr [4]byte) string {
	t.Helper()
	return dnsNamed(t, addr, nil)
}

// dnsNamed is dnsOverTCP answering each name of named (a fully
// qualified name, "x.test.") with its addresses, in their order, and any
// other with addr.
func dnsNamed(t *testing.T, addr [4]byte, named map[string][][4]byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answerOverTCP(c, addr, named)
		}
	}()
	return ln.Addr().String()
}

// answerOverTCP answers the questions of one DNS-over-TCP connection, each
// message after its two-byte length: a name of named with its addresses,
// any other with addr.
func answerOverTCP(c net.Conn, addr [4]byte, named map[string][][4]byte) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	for {
		var size [2]byte
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		query := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(c, query); err != nil {
			return
		}
		var p dnsmessage.Parser
		h, err := p.Start(query)
		if err != nil {
			return
		}
		q, err := p.Question()
		if err != nil {
			return
		}
		b := dnsmessage.NewBuilder(make([]byte, 2, 514), dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
		b.EnableCompression()
		_ = b.StartQuestions()
		_ = b.Question(q)
		_ = b.StartAnswers()
		if q.Type == dnsmessage.TypeA {
			answers, ok := named[q.Name.String()]
			if !ok {
				answers = [][4]byte{addr}
			}
			for _, a := range answers {
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET,
					TTL: 60}, dnsmessage.AResource{A: a})
			}
		}
		msg, err := b.Finish()
		if err != nil {
			return
		}
		binary.BigEndian.PutUint16(msg, uint16(len(msg)-2))
		if _, err := c.Write(msg); err != nil {
			return
		}
	}
}

// TestResolverOverTCP: the dial overTCP makes reaches a name server over
// TCP when Go's resolver asks for UDP, and the resolver gets its answer
// over that stream; the language's own resolver dials so. The resolver
// is pointed at the test's server by the dial beneath overTCP, since the
// machine's /etc/resolv.conf is not the test's to change.
func TestResolverOverTCP(t *testing.T) {
	server := dnsOverTCP(t, [4]byte{192, 0, 2, 7})
	var mu sync.Mutex
	var asked, dialled []string
	inner := func(ctx context.Context, network, _ string) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, network)
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}
	tcp := overTCP(inner)
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		mu.Lock()
		asked = append(asked, network)
		mu.Unlock()
		return tcp(ctx, network, address)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := r.LookupHost(ctx, "sabline.test.")
	if err != nil {
		t.Fatalf("LookupHost: %v", err)
	}
	if !slices.Contains(addrs, "192.0.2.7") {
		t.Errorf("LookupHost = %v, want 192.0.2.7 among them", addrs)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(asked, "udp") {
		t.Errorf("the resolver asked for %v, never udp: the test shows nothing", asked)
	}
	for _, n := range dialled {
		if n != "tcp" {
			t.Errorf("a name server was dialled over %s, want tcp only (the resolver asked for %v)", n, asked)
		}
	}

	// The language's resolver: asked for UDP, it dials TCP.
	if !resolver.PreferGo || resolver.Dial == nil || dialer.Resolver != resolver {
		t.Fatalf("the language's dialer does not resolve with its own resolver over TCP")
	}
	c, err := resolver.Dial(ctx, "udp", server)
	if err != nil {
		t.Fatalf("the language's resolver dial: %v", err)
	}
	defer c.Close()
	if _, ok := c.(*net.TCPConn); !ok {
		t.Errorf("the language's resolver dialled %T for udp, want a TCP connection", c)
	}
}

// TestConfigDial: every connection of a run with a Config.Dial goes
// through it, the language's and its host modules' alike, and a refusal
// it returns keeps its code; without one, the same program dials itself
// (the control).
func TestConfigDial(t *testing.T) {
	port := testkit.Serve(t, func(c net.Conn) {
		fmt.Fprint(c, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	src := "c = net.connect(\"127.0.0.1\", " + port + ")\nc.close()\n" +
		"print(net.http_get(\"http://127.0.0.1:" + port + "/\").body)\n" +
		"s = ffi.module(\"socket\").connect(\"127.0.0.1\", " + port + ")\ns.close()\n" +
		"print(ffi.module(\"urllib\").urlopen(\"http://127.0.0.1:" + port + "/\"))\n"
	b := budget.MustParse("/", "io,net:127.0.0.1:"+port+",ffi:socket,ffi:urllib")
	var asked []string
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		asked = append(asked, network+" "+address)
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	r := runSrc(t, Config{Budget: b, Cwd: testkit.Scratch(t), Dial: dial}, src)
	if r.err != nil || r.stdout != "ok\nok\n" {
		t.Fatalf("run: %q, %v", r.stdout, r.err)
	}
	if len(asked) != 4 {
		t.Fatalf("Config.Dial was asked %d times (%q); want 4: net.connect, http_get, socket, urllib",
			len(asked), asked)
	}
	control := runSrc(t, Config{Budget: b, Cwd: testkit.Scratch(t)}, src)
	if control.err != nil || control.stdout != "ok\nok\n" {
		t.Fatalf("the run that dials itself: %q, %v", control.stdout, control.err)
	}

	refuse := func(context.Context, string, string) (net.Conn, error) {
		return nil, codes.Errorf(codes.E335, "an address the grant does not reach")
	}
	r = runSrc(t, Config{Budget: b, Cwd: testkit.Scratch(t), Dial: refuse},
		"net.connect(\"127.0.0.1\", "+port+")\n")
	if codes.CodeOf(r.err) != codes.E335 || !strings.Contains(r.err.Error(),
		"net.connect 127.0.0.1:"+port+": an address the grant does not reach") {
		t.Fatalf("a refused dial: %v; want its E335, said after the call", r.err)
	}
}

// TestOwnDialHoldsNamesAsTheBroker: a run that dials itself (no
// Config.Dial: in the caller's process, under --no-confine) holds a grant
// of a name to that name's public addresses, as the broker holds a
// confined run: a name that answers with a loopback address is refused
// (E335) for net.connect and net.http_get, and the listener there sees no
// connection; a name that answers a public address and a loopback one is
// dialled at the public one alone (which this machine's dial refuses,
// the test's dialer reaching no address but 127.0.0.1). Once, the run
// connected where the confined run was refused. The controls connect:
// the address granted itself, localhost, the same name under a grant of
// any host, and a name beneath .localhost whose first address refuses
// (127.0.0.2), at its second.
func TestOwnDialHoldsNamesAsTheBroker(t *testing.T) {
	server := dnsNamed(t, [4]byte{127, 0, 0, 1}, map[string][][4]byte{
		"mixed.test.":       {{93, 184, 215, 14}, {127, 0, 0, 1}},
		"second.localhost.": {{127, 0, 0, 2}, {127, 0, 0, 1}},
	})
	kept, keptControl := resolver, dialer.Control
	resolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn,
		error) {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", server)
	}}
	dialer.Resolver = resolver // a host module's dial, and a grant of any host
	dialer.Control = func(_, address string, _ syscall.RawConn) error {
		if host, _, _ := net.SplitHostPort(address); host != "127.0.0.1" {
			return fmt.Errorf("the test's dialer reaches 127.0.0.1 alone, not %s", address)
		}
		return nil
	}
	t.Cleanup(func() { resolver, dialer.Resolver, dialer.Control = kept, kept, keptControl })

	var accepted atomic.Int64
	port := testkit.Serve(t, func(c net.Conn) {
		accepted.Add(1)
		fmt.Fprint(c, "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok")
	})
	connect := "c = net.connect(\"HOST\", " + port + ")\nc.close()\n"
	get := "print(net.http_get(\"http://HOST:" + port + "/\").body)\n"
	for _, tt := range []struct {
		name, grant, host, src string
		want                   codes.Code // "" for a connection made
	}{
		{"a name that answers loopback", "net:rebind.test:" + port, "rebind.test", connect, codes.E335},
		{"http_get of it", "net:rebind.test:" + port, "rebind.test", get, codes.E335},
		{"the address granted", "net:127.0.0.1:" + port, "127.0.0.1", connect, ""},
		{"localhost", "net:localhost:" + port, "localhost", get, ""},
		{"the name under a grant of any host", "net", "rebind.test", connect, ""},
		{"a name that answers a public address and loopback", "net:mixed.test:" + port,
			"mixed.test", connect, codes.E315},
		{"a name whose first address refuses", "net:second.localhost:" + port, "second.localhost",
			connect, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			before := accepted.Load()
			r := runSrc(t, Config{Budget: budget.MustParse(dir, "io,"+tt.grant), Cwd: dir},
				strings.ReplaceAll(tt.src, "HOST", tt.host))
			// The handler counts a connection as it takes it; a run that
			// connected has had its answer, or closed, by the time it ends.
			var made int64
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); runtime.Gosched() {
				if made = accepted.Load() - before; made > 0 || tt.want != "" || r.err != nil {
					break
				}
			}
			if tt.want == "" {
				if r.err != nil || made != 1 {
					t.Fatalf("run: %v, %d connections; want it connected", r.err, made)
				}
				return
			}
			switch {
			case tt.want == codes.E315: // the public address dialled, and refused here
				if codes.CodeOf(r.err) != tt.want || !strings.Contains(r.err.Error(),
					"not 93.184.215.14:"+port) {
					t.Errorf("run: %v; want %s, the public address dialled alone", r.err, tt.want)
				}
			case codes.CodeOf(r.err) != tt.want || !strings.Contains(r.err.Error(),
				"rebind.test resolved to 127.0.0.1 only"):
				t.Errorf("run: %v; want %s, the name resolved to loopback", r.err, tt.want)
			}
			if made != 0 {
				t.Errorf("the listener took %d connections; want none", made)
			}
		})
	}
}

// TestExecClosesWhatItLeftOpen: a connection (TCP, UDP) a program leaves
// open is closed as its run ends, whether it dials itself or through
// Config.Dial, as a worker's broker does. Before, a run with no broker (a
// pool under --no-confine, a run in the caller's process) left it open
// in the process that ran it, its peer still connected while the next
// caller's program ran there, until a garbage collection closed it. The
// controls: the peer had the program's bytes (the way was tried), and a
// program that closes its connection itself.
func TestExecClosesWhatItLeftOpen(t *testing.T) {
	for _, tt := range []struct {
		name, close string
		dial        DialFunc
	}{
		{name: "a run that dials itself"},
		{name: "a run that dials through Config.Dial", dial: (&net.Dialer{}).DialContext},
		{name: "the control: the program closes them", close: "c.close()\nu.close()\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			udp, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer udp.Close()
			port := ln.Addr().(*net.TCPAddr).Port
			uport := udp.LocalAddr().(*net.UDPAddr).Port
			b := budget.MustParse("/", fmt.Sprintf("io,net:127.0.0.1:%d,net:udp:127.0.0.1:%d", port, uport))
			src := fmt.Sprintf("c = net.connect(\"127.0.0.1\", %d)\nc.send(\"left\")\n"+
				"u = net.udp(\"127.0.0.1\", %d)\nu.send(\"left\")\n%sprint(\"ran\")\n", port, uport, tt.close)
			r := runSrc(t, Config{Budget: b, Cwd: testkit.Scratch(t), Dial: tt.dial}, src)
			if r.err != nil || r.stdout != "ran\n" {
				t.Fatalf("run: %q, %v", r.stdout, r.err)
			}
			peer, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer peer.Close()
			// Bounded by what it waits for: the bytes, then the end.
			_ = peer.SetReadDeadline(time.Now().Add(testkit.Bound(10 * time.Second)))
			got, err := io.ReadAll(peer)
			if string(got) != "left" {
				t.Fatalf("the peer read %q (%v), want the program's bytes", got, err)
			}
			if err != nil {
				t.Errorf("the connection the program left is still open once its run ended: %v", err)
			}
			// The datagram socket: its port is free once the run ended,
			// as it is once closed.
			buf := make([]byte, 16)
			_ = udp.SetReadDeadline(time.Now().Add(testkit.Bound(10 * time.Second)))
			n, from, err := udp.ReadFrom(buf)
			if err != nil || string(buf[:n]) != "left" {
				t.Fatalf("the datagram: %q, %v", buf[:n], err)
			}
			if again, err := net.ListenPacket("udp", from.String()); err != nil {
				t.Errorf("the datagram socket the program left is still bound to %s: %v", from, err)
			} else {
				again.Close()
			}
		})
	}
}

// TestOwnDialBounded: a run that dials itself (no Config.Dial: under
// --no-confine, in the caller's process, on a system with no broker)
// holds at most reach.MaxOpen connections open at once and makes at most
// reach.MaxConnections, as a confined worker's supervisor holds a run
// (internal/broker): past either, E335. Before, such a run held as many
// as the process's descriptors let it: 9,000 under --no-confine, until
// its supervisor stopped it for the descriptors it held (E330, which
// names the private temporary directory), and 2,500 of the caller's
// own in its process. The bounds hold under a grant of any host too,
// whose connections go to the addresses the program names. The controls:
// as many as the bounds let it, each closed when the bound is on the
// open ones, the listener counting each.
func TestOwnDialBounded(t *testing.T) {
	// open makes ARGS[0] connections, closing each when ARGS[1] says so.
	const open = `cs = []
for i in range(int(ARGS[0])):
    c = net.connect("127.0.0.1", PORT)
    if ARGS[1] == "close":
        c.close()
    else:
        cs.append(c)
print("made %d" % int(ARGS[0]))
`
	for _, tt := range []struct {
		name  string
		n     int
		close string
		want  codes.Code
		any   bool // a grant of any host, not of the listener's address
	}{
		{name: "one past those open at once", n: reach.MaxOpen + 1, close: "keep", want: codes.E335},
		{name: "the control: as many open as the bound", n: reach.MaxOpen, close: "keep"},
		{name: "one past those made", n: reach.MaxConnections + 1, close: "close", want: codes.E335},
		{name: "the control: as many made as the bound", n: reach.MaxConnections, close: "close"},
		{name: "one past those open at once, any host", n: reach.MaxOpen + 1, close: "keep",
			want: codes.E335, any: true},
		{name: "the control: as many open as the bound, any host", n: reach.MaxOpen, close: "keep",
			any: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			var accepted atomic.Int64
			var peers sync.WaitGroup
			peers.Add(1)
			go func() {
				defer peers.Done()
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted.Add(1)
					c.Close()
				}
			}()
			defer peers.Wait()
			defer ln.Close()
			port := ln.Addr().(*net.TCPAddr).Port
			grant := fmt.Sprintf("net:127.0.0.1:%d", port)
			if tt.any {
				grant = "net"
			}
			b := budget.MustParse("/", "io,"+grant)
			r := runSrc(t, Config{Budget: b, Cwd: testkit.Scratch(t), Args: []string{fmt.Sprint(tt.n),
				tt.close}}, strings.ReplaceAll(open, "PORT", fmt.Sprint(port)))
			made := tt.n
			if tt.want != "" {
				if codes.CodeOf(r.err) != tt.want || !strings.Contains(r.err.Error(),
					fmt.Sprintf("a run makes at most %d, %d at once", reach.MaxConnections, reach.MaxOpen)) {
					t.Fatalf("run: %q, %v; want %s, the connection past the bound refused", r.stdout,
						r.err, tt.want)
				}
				made--
			} else if r.err != nil || r.stdout != fmt.Sprintf("made %d\n", tt.n) {
				t.Fatalf("run: %q, %v; want every connection made", r.stdout, r.err)
			}
			// Bounded by what it waits for: the listener's count of them.
			deadline := time.Now().Add(testkit.Bound(10 * time.Second))
			for accepted.Load() < int64(made) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if got := accepted.Load(); got != int64(made) {
				t.Errorf("the listener took %d connections; want %d", got, made)
			}
		})
	}
}
