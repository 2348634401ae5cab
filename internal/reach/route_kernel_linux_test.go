package reach

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// rawAnswer sends the route question req, request seq, over fd and
// returns the datagram that answers it, as the kernel wrote it.
func rawAnswer(t *testing.T, fd int, req []byte, seq uint32) []byte {
	t.Helper()
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		t.Fatalf("netlink send: %v", err)
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			t.Fatalf("netlink receive: %v", err)
		}
		if n >= unix.NLMSG_HDRLEN && binary.NativeEndian.Uint32(buf[8:]) == seq {
			return buf[:n]
		}
	}
}

// TestRouteErrorsAsTheKernelAnswers: the errors read as no route
// (noRouteErrors) are those the kernel answers a route question with, in
// a network namespace of the test's own, for an address no route leads
// to (ENETUNREACH), one behind a throw route (ENETUNREACH), an
// unreachable route (EHOSTUNREACH), a prohibit route (EACCES) and a
// blackhole route (EINVAL), over IPv4 and IPv6, each with no reason of
// the kernel's given (an EINVAL with one is a question it could not
// read); a connection there (a UDP socket's connect, as sourceOf makes)
// fails with the same error. Each is read as no route, here false and no
// error. The controls: an address on the link is routed (unicast, from
// the namespace's address), and the namespace's own address is here.
func TestRouteErrorsAsTheKernelAnswers(t *testing.T) {
	if !testkit.InNetworkOfItsOwn(t, "route errors") {
		return
	}
	run := testkit.IPCommand(t)
	run("link", "set", "lo", "up")
	run("link", "add", "v0", "type", "veth", "peer", "name", "v1")
	run("link", "set", "v0", "up")
	run("link", "set", "v1", "up")
	run("addr", "add", "203.0.113.5/24", "dev", "v0")
	run("-6", "addr", "add", "2001:db8:10::5/64", "dev", "v0", "nodad")
	for _, r := range [][]string{{"unreachable", "198.51.101.0/24", "2001:db8:101::/48"},
		{"prohibit", "198.51.102.0/24", "2001:db8:102::/48"},
		{"blackhole", "198.51.103.0/24", "2001:db8:103::/48"},
		{"throw", "198.51.104.0/24", "2001:db8:104::/48"}} {
		run("route", "add", r[0], r[1])
		run("-6", "route", "add", r[0], r[2])
	}
	tests := []struct {
		name      string
		addr      string
		wantErrno unix.Errno // 0: a route
		wantHere  bool
		wantPref  string
	}{
		{name: "no route", addr: "198.51.100.9", wantErrno: unix.ENETUNREACH},
		{name: "an unreachable route", addr: "198.51.101.9", wantErrno: unix.EHOSTUNREACH},
		{name: "a prohibit route", addr: "198.51.102.9", wantErrno: unix.EACCES},
		{name: "a blackhole route", addr: "198.51.103.9", wantErrno: unix.EINVAL},
		{name: "a throw route", addr: "198.51.104.9", wantErrno: unix.ENETUNREACH},
		{name: "no route (IPv6)", addr: "2001:db8:99::9", wantErrno: unix.ENETUNREACH},
		{name: "an unreachable route (IPv6)", addr: "2001:db8:101::9",
			wantErrno: unix.EHOSTUNREACH},
		{name: "a prohibit route (IPv6)", addr: "2001:db8:102::9", wantErrno: unix.EACCES},
		{name: "a blackhole route (IPv6)", addr: "2001:db8:103::9", wantErrno: unix.EINVAL},
		{name: "a throw route (IPv6)", addr: "2001:db8:104::9", wantErrno: unix.ENETUNREACH},
		{name: "the control: an address on the link", addr: "203.0.113.7",
			wantPref: "203.0.113.5"},
		{name: "the control: an address on the link (IPv6)", addr: "2001:db8:10::7",
			wantPref: "2001:db8:10::5"},
		{name: "the control: the namespace's own address", addr: "203.0.113.5", wantHere: true,
			wantPref: "203.0.113.5"},
	}
	fd, err := routeSocket()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	conn := connection{proto: unix.IPPROTO_TCP, port: 443}
	seq := uint32(100)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := netip.MustParseAddr(tt.addr)

			// What the kernel wrote: an error answer with that errno and no
			// reason of its own, or a route.
			seq++
			raw := rawAnswer(t, fd, routeQuestion(a, netip.Addr{}, conn, seq), seq)
			typ := binary.NativeEndian.Uint16(raw[4:])
			switch {
			case tt.wantErrno == 0 && typ != unix.RTM_NEWROUTE:
				t.Fatalf("the kernel answered a message of type %d (%x); want a route", typ, raw)
			case tt.wantErrno != 0 && typ != unix.NLMSG_ERROR:
				t.Fatalf("the kernel answered a message of type %d; want an error", typ)
			case tt.wantErrno != 0:
				e := unix.Errno(-int32(binary.NativeEndian.Uint32(raw[unix.NLMSG_HDRLEN:])))
				flags := binary.NativeEndian.Uint16(raw[6:])
				if e != tt.wantErrno || flags&unix.NLM_F_ACK_TLVS != 0 {
					t.Fatalf("the kernel answered %v (%d), flags %#x; want %v with no reason",
						e, e, flags, tt.wantErrno)
				}
			}

			// How it is read, and what the thin function asking it says.
			here, pref, err := routeAnswer(raw, seq)
			seq++
			h2, p2, err2 := routedLocal(fd, a, netip.Addr{}, conn, seq)
			for _, got := range []struct {
				here bool
				pref netip.Addr
				err  error
			}{{here, pref, err}, {h2, p2, err2}} {
				if got.err != nil || got.here != tt.wantHere ||
					addrString(got.pref) != tt.wantPref {
					t.Errorf("read as (%v, %v, %v); want (%v, %q, no error)", got.here,
						got.pref, got.err, tt.wantHere, tt.wantPref)
				}
			}

			// A connection there: it fails with the same errno, and
			// sourceOf reads that as no route.
			c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(
				netip.AddrPortFrom(a, conn.port)))
			if err == nil {
				c.Close()
			}
			if tt.wantErrno != 0 && !errors.Is(err, tt.wantErrno) ||
				tt.wantErrno == 0 && err != nil {
				t.Errorf("connect to %s: %v; want %v", a, err, errOrNone(tt.wantErrno))
			}
			src, ok, err := sourceOf(a, conn.port)
			if err != nil || ok != (tt.wantErrno == 0) ||
				ok && addrString(src) != tt.wantPref {
				t.Errorf("sourceOf(%s) = %v, %v, %v; want a source %v (%q), no error", a, src,
					ok, err, tt.wantErrno == 0, tt.wantPref)
			}
		})
	}
}

// errOrNone is e, or the text "no error" for 0.
func errOrNone(e unix.Errno) any {
	if e == 0 {
		return "no error"
	}
	return e
}

// TestRouteQuestionRefused: a route question the kernel refuses (one of
// a family it routes none of, EOPNOTSUPP; a header cut short, EINVAL
// with the kernel's reason; an attribute of the wrong size) says nothing
// of the route, and is an error, which Check turns into a refusal
// (E335), never no route. The control: the same question whole is
// answered, a route of this machine's own (127.0.0.1). Asked of the
// kernel the test runs on, over the socket routedHere asks on.
func TestRouteQuestionRefused(t *testing.T) {
	fd, err := routeSocket()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	loopback := netip.MustParseAddr("127.0.0.1")
	conn := connection{proto: unix.IPPROTO_TCP, port: 443}
	tests := []struct {
		name      string
		edit      func(req []byte) []byte
		wantErr   string // "" for none
		wantErrno unix.Errno
		wantHere  bool
	}{
		{name: "the control: the question whole", edit: func(req []byte) []byte { return req },
			wantHere: true},
		{name: "a family the kernel routes none of",
			edit: func(req []byte) []byte {
				req[unix.NLMSG_HDRLEN] = unix.AF_UNSPEC // rtm_family
				return req
			},
			wantErr: "refused the route question", wantErrno: unix.EOPNOTSUPP},
		{name: "a header cut short",
			edit: func(req []byte) []byte {
				req = req[:unix.NLMSG_HDRLEN+4]
				binary.NativeEndian.PutUint32(req, uint32(len(req)))
				return req
			},
			wantErr: "refused the route question (", wantErrno: unix.EINVAL},
		{name: "a destination of three bytes",
			edit: func(req []byte) []byte {
				at := unix.NLMSG_HDRLEN + unix.SizeofRtMsg // the RTA_DST attribute
				binary.NativeEndian.PutUint16(req[at:], unix.SizeofRtAttr+3)
				return req
			},
			wantErr: "refused the route question"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := uint32(200 + i)
			here, pref, err := ask(fd, tt.edit(routeQuestion(loopback, netip.Addr{}, conn, seq)),
				seq)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("ask = %v; want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("ask = %v, %v, %v; want an error saying %q", here, pref, err,
					tt.wantErr)
			case tt.wantErrno != 0 && !errors.Is(err, tt.wantErrno):
				t.Fatalf("ask = %v; want it to wrap %v", err, tt.wantErrno)
			}
			if here != tt.wantHere {
				t.Errorf("here = %v; want %v", here, tt.wantHere)
			}
			t.Logf("ask = %v, %v, %v", here, pref, err)
		})
	}
}

// TestCheckRefusesWhereTheRouteIsNotRead: where the kernel refuses the
// route question (here one of a family it routes none of, EOPNOTSUPP),
// whether it routes a name's address to this machine is not known, and
// the name is refused (E335) with a message that says to grant the
// address itself, both before the connection (Check) and as it is made
// (Control). Read as no route, the address was let through unasked. The
// control: the question whole, the same address is not refused.
func TestCheckRefusesWhereTheRouteIsNotRead(t *testing.T) {
	const host, addr = "api.example.com", "198.51.100.9"
	a := []netip.Addr{netip.MustParseAddr(addr)}
	dial := func() error {
		d := net.Dialer{Control: Control(host), Timeout: time.Second}
		c, err := d.Dial("udp", net.JoinHostPort(addr, "443"))
		if err == nil {
			c.Close()
		}
		return err
	}
	t.Cleanup(func() { question = routeQuestion })
	question = func(a, src netip.Addr, c connection, seq uint32) []byte {
		req := routeQuestion(a, src, c, seq)
		req[unix.NLMSG_HDRLEN] = unix.AF_UNSPEC // rtm_family
		return req
	}
	_, checked := Check("tcp", host, 443, a)
	held := dial()
	for _, err := range []error{checked, held} {
		if codes.CodeOf(err) != codes.E335 || !strings.Contains(fmtErr(err),
			"grant the address itself") || !errors.Is(err, unix.EOPNOTSUPP) {
			t.Errorf("a name behind %s, its route question refused: %v; want E335 wrapping "+
				"EOPNOTSUPP, saying to grant the address itself", addr, err)
		}
	}

	question = routeQuestion
	if got, err := Check("tcp", host, 443, a); err != nil || len(got) != 1 {
		t.Errorf("Check of a name behind %s, asked whole = %v, %v; want it", addr, got, err)
	}
	if err := dial(); codes.CodeOf(err) == codes.E335 {
		t.Errorf("a connection to %s under a name, asked whole: %v; want no E335", addr, err)
	}
}

// fmtErr is err's text, "" for nil.
func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
