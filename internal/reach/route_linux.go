package reach

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
)

// routedHere returns those of addrs, and of the IPv4 addresses they carry
// (carried), that the kernel routes to this machine itself (routedHereAs):
// every address of its interfaces, every address of a prefix routed to
// it (ip route add local 198.51.100.0/24 dev lo, as anycast and
// transparent proxies set up), which no interface lists, and a broadcast
// or anycast address of one of its networks: a name that answered
// 198.51.100.9 there reached every service listening on all the
// machine's addresses. Each is asked of the kernel over one netlink
// socket, as this process's connection (to port, over TCP or UDP as
// network says) would be routed to it: its user's rules, and those that
// choose by protocol or port (ip rule add ipproto tcp dport 8080 lookup
// 100, as a transparent proxy sets up), which a question naming neither
// passed by, so that a name answering an address such a rule sends to a
// local route reached a listener here.
func routedHere(network string, port uint16, addrs []netip.Addr) ([]netip.Addr, error) {
	return routedHereFrom(network, 0, port, addrs)
}

// routedHereFrom is routedHere for a connection from the source port
// sport, 0 for one not chosen yet (routeHeld).
func routedHereFrom(network string, sport, port uint16, addrs []netip.Addr) ([]netip.Addr, error) {
	conn := connection{proto: unix.IPPROTO_TCP, sport: sport, port: port}
	if strings.HasPrefix(network, "udp") {
		conn.proto = unix.IPPROTO_UDP
	}
	fd, err := routeSocket()
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var out []netip.Addr
	seq := uint32(0)
	for _, a := range addrs {
		a = a.Unmap()
		forms := []netip.Addr{a}
		if v4, ok := carried(a); ok {
			forms = append(forms, v4)
		}
		for _, f := range forms {
			here, err := routedHereAs(fd, f, conn, &seq)
			if err != nil {
				return nil, fmt.Errorf("route to %s: %w", f, err)
			}
			if here {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// routeSocket opens the netlink socket route questions are asked over
// (routedLocal). The kernel answers before its send returns; a second
// bounds a wait for an answer that never comes. The kernel says why it
// refused a question it could not read (NETLINK_EXT_ACK, since Linux
// 4.12): an EINVAL it answers with a message of its own is such a
// refusal, told from the EINVAL of a blackhole route, which carries none
// (routeAnswer); a kernel that cannot say so is not asked.
func routeSocket() (int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return -1, fmt.Errorf("netlink socket: %w", err)
	}
	tv := unix.Timeval{Sec: 1}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("netlink socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_EXT_ACK, 1); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("netlink socket: the kernel's reasons for a refusal "+
			"(NETLINK_EXT_ACK): %w", err)
	}
	return fd, nil
}

// routedHereAs reports whether the kernel routes a connection to a to
// this machine itself, asking over the netlink socket fd (seq counts the
// requests) as a connection is routed: to a alone, and to a from the
// source the kernel takes for it (sourceOf), since a rule of the
// operator's may send that source to a table of its own (ip rule add
// from 203.0.113.5 lookup 100, where table 100 holds a local route),
// and the kernel routes a connection again once its source is chosen,
// on IPv4 every time and on IPv6 where the first route failed. The
// source is the one the first route names (its preferred source, chosen
// as the connection's, protocol and ports alike), and that of a UDP
// socket connected to a where it names none or another: a rule by
// protocol (ip rule add ipproto tcp dport 8080 lookup 200, table 200's
// route taking the source 192.0.2.5) gives a TCP connection a source a
// UDP socket does not take, and a rule by that source (from 192.0.2.5
// lookup 100, table 100 holding a local route) delivered it here. An
// address reached from none is routed elsewhere or nowhere, and a
// connection there leaves the machine or fails as the lookup did.
func routedHereAs(fd int, a netip.Addr, c connection, seq *uint32) (bool, error) {
	*seq++
	here, pref, err := routedLocal(fd, a, netip.Addr{}, c, *seq)
	if err != nil || here {
		return here, err
	}
	if pref.IsValid() {
		*seq++
		if here, _, err := routedLocal(fd, a, pref, c, *seq); err != nil || here {
			return here, err
		}
	}
	src, ok, err := sourceOf(a, c.port)
	if err != nil || !ok || src == pref {
		return false, err
	}
	*seq++
	here, _, err = routedLocal(fd, a, src, c, *seq)
	return here, err
}

// connection is what the kernel's rules may choose a route by beside the
// addresses: the protocol (IPPROTO_TCP or IPPROTO_UDP), the port a
// connection comes from (0 for one not chosen yet) and the port it goes
// to.
type connection struct {
	proto       byte
	sport, port uint16
}

// routeHeld refuses (E335) the connection to address over network, on
// the socket c, where the kernel routes it to this machine from the
// source port it takes: the socket is bound to a port of its own (any
// address) before it connects, and the kernel asked of its route from
// that port. A rule of the operator's may choose by source port (ip rule
// add ipproto tcp sport 32768-60999 lookup 100, where table 100 holds a
// local route), which Check, asking before the port is chosen, passed
// by, and a name answering an address such a rule sends here reached a
// listener on all this machine's addresses.
func routeHeld(network, address string, c syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("the route to %s: %w", address, err)
	}
	var sport uint16
	var berr error
	if err := c.Control(func(fd uintptr) { sport, berr = bindAny(int(fd)) }); err != nil {
		return fmt.Errorf("the route to %s: %w", address, err)
	}
	if berr != nil {
		return fmt.Errorf("the route to %s: bind a port of its own: %w", address, berr)
	}
	here, err := routedHereFrom(network, sport, ap.Port(), []netip.Addr{ap.Addr()})
	switch {
	case err != nil:
		return codes.Errorf(codes.E335, "whether the kernel routes %s to this machine could "+
			"not be read (%w), so it is not reached behind a name: grant the address itself",
			address, err)
	case len(here) > 0:
		return codes.Errorf(codes.E335, "%s is routed to this machine as the connection is "+
			"made, from the port %d it takes (a rule by source port, or a route changed since "+
			"its name was judged), which a grant of a name does not reach: grant the address "+
			"itself, as net:%s, to reach it", address, sport, hostForm(ap.Addr().Unmap()))
	}
	return nil
}

// bindAny binds the socket fd to a port the kernel chooses, on any
// address of its family, and returns that port.
func bindAny(fd int) (uint16, error) {
	domain, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return 0, err
	}
	var sa unix.Sockaddr = &unix.SockaddrInet4{}
	if domain == unix.AF_INET6 {
		sa = &unix.SockaddrInet6{}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return 0, err
	}
	switch got, err := unix.Getsockname(fd); bound := got.(type) {
	case *unix.SockaddrInet4:
		return uint16(bound.Port), err
	case *unix.SockaddrInet6:
		return uint16(bound.Port), err
	default:
		return 0, fmt.Errorf("getsockname: %v (%T)", err, got)
	}
}

// sourceOf is the source address the kernel takes for a connection to
// a at port: that of a UDP socket connected there, which sends nothing
// (the kernel routes it as it routes a TCP connection). ok is false where
// no route leads to a (the socket's connect answered one of
// noRouteErrors): a connection fails there too. Any other error is
// returned.
func sourceOf(a netip.Addr, port uint16) (src netip.Addr, ok bool, err error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, max(port, 1))))
	switch {
	case slices.ContainsFunc(noRouteErrors, func(e unix.Errno) bool { return errors.Is(err, e) }):
		return netip.Addr{}, false, nil // no route, an unreachable, a prohibit or a blackhole
	case err != nil:
		return netip.Addr{}, false, fmt.Errorf("the source of a connection: %w", err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap(), true, nil
}

// routedHereTypes are the types of route that deliver to this machine
// itself: its own addresses and prefixes (local), a broadcast address of
// one of its networks (a datagram sent there reaches its listeners on
// all addresses, and its neighbours'), an anycast address of one (IPv6's
// subnet-router anycast, delivered here on a machine that forwards), and
// a multicast group (which public refuses behind a name already).
var routedHereTypes = []byte{unix.RTN_LOCAL, unix.RTN_BROADCAST, unix.RTN_ANYCAST,
	unix.RTN_MULTICAST}

// noRouteErrors are the errors the kernel answers a route question, and
// a connection, with where no route leads to the address, as a test
// watches it answer them in a network namespace of its own
// (TestRouteErrorsAsTheKernelAnswers): ENETUNREACH where no route matches
// or a throw route does, EHOSTUNREACH for an unreachable route, EACCES
// for a prohibit route, EINVAL for a blackhole route (with no reason of
// the kernel's given: routeError). A connection there fails as the
// question did. Any other error the kernel answers is a question it
// refused (EOPNOTSUPP, EPERM, ENOBUFS, an attribute or a header it could
// not read), which says nothing of the route.
var noRouteErrors = []unix.Errno{unix.ENETUNREACH, unix.EHOSTUNREACH, unix.EACCES, unix.EINVAL}

// routedLocal asks the kernel, over the netlink socket fd (routeSocket),
// for its route to a (RTM_GETROUTE, request seq), from src where it is
// valid, for the connection c (its protocol and port), and reports what
// it answered (routeAnswer): whether the route is of a type that delivers
// here (routedHereTypes), and the source it takes (RTA_PREFSRC), invalid
// where it names none. No route (one of noRouteErrors) is none: a
// connection there fails as the lookup did, or takes a source and is
// asked of again (routedHereAs). Any other error, and an answer that
// cannot be read, is an error: the address is not judged unasked.
func routedLocal(fd int, a, src netip.Addr, c connection,
	seq uint32) (here bool, pref netip.Addr, err error) {
	return ask(fd, question(a, src, c, seq), seq)
}

// question is routeQuestion; a test puts a question the kernel refuses
// in its place.
var question = routeQuestion

// ask sends the route question req, request seq, over the netlink socket
// fd and reads the kernel's answer to it (routeAnswer).
func ask(fd int, req []byte, seq uint32) (here bool, pref netip.Addr, err error) {
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return false, netip.Addr{}, fmt.Errorf("netlink send: %w", err)
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, netip.Addr{}, fmt.Errorf("netlink receive: %w", err)
		}
		here, pref, err := routeAnswer(buf[:n], seq)
		if err == errUnanswered {
			continue // an answer to an earlier question
		}
		return here, pref, err
	}
}

// routeQuestion is the RTM_GETROUTE request seq for the route to a, from
// src where it is valid, for the connection c (routedLocal).
func routeQuestion(a, src netip.Addr, c connection, seq uint32) []byte {
	family := byte(unix.AF_INET)
	if a.Is6() {
		family = unix.AF_INET6
	}
	dst := a.AsSlice()
	ne := binary.NativeEndian
	req := make([]byte, unix.NLMSG_HDRLEN+unix.SizeofRtMsg, 128)
	ne.PutUint16(req[4:], unix.RTM_GETROUTE) // nlmsg_type
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], seq)
	msg := req[unix.NLMSG_HDRLEN:]
	msg[0], msg[1] = family, byte(8*len(dst)) // rtm_family, rtm_dst_len
	if src.IsValid() {
		msg[2] = msg[1] // rtm_src_len
	}
	attr := func(typ uint16, data []byte) {
		n := unix.SizeofRtAttr + len(data)
		rta := make([]byte, (n+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1))
		ne.PutUint16(rta[0:], uint16(n))
		ne.PutUint16(rta[2:], typ)
		copy(rta[unix.SizeofRtAttr:], data)
		req = append(req, rta...)
	}
	attr(unix.RTA_DST, dst)
	if src.IsValid() {
		attr(unix.RTA_SRC, src.AsSlice())
	}
	attr(unix.RTA_IP_PROTO, []byte{c.proto})
	if c.sport != 0 {
		attr(unix.RTA_SPORT, binary.BigEndian.AppendUint16(nil, c.sport))
	}
	attr(unix.RTA_DPORT, binary.BigEndian.AppendUint16(nil, c.port))
	ne.PutUint32(req[0:], uint32(len(req))) // nlmsg_len
	return req
}

// errUnanswered is routeAnswer's error for a datagram none of whose
// messages answers the question asked: the next is read.
var errUnanswered = errors.New("netlink receive: no answer to the question asked")

// routeAnswer reads the kernel's answer to the route question seq from b,
// a datagram read from the netlink socket it was asked over
// (routeSocket): here, where the route is of a type that delivers to
// this machine (routedHereTypes), and pref, the source it takes
// (RTA_PREFSRC), invalid where it names none. An error answer of no
// route (one of noRouteErrors, with no message of the kernel's: a
// question it could not read is refused with EINVAL and a message) is no
// route, here false and no error. Any other error answer (a question the
// kernel refused), an acknowledgement (an error of 0, which answers
// nothing), any other message for seq, and bytes that do not read as the
// kernel writes them are an error; messages for other questions, and
// NLMSG_NOOP, are passed over, and a datagram of nothing else is
// errUnanswered.
func routeAnswer(b []byte, seq uint32) (here bool, pref netip.Addr, err error) {
	ne := binary.NativeEndian
	for len(b) > 0 {
		if len(b) < unix.NLMSG_HDRLEN {
			return false, netip.Addr{}, fmt.Errorf("netlink receive: %d bytes after the last "+
				"message, short of a header", len(b))
		}
		n := int(ne.Uint32(b[0:])) // nlmsg_len
		if n < unix.NLMSG_HDRLEN || n > len(b) {
			return false, netip.Addr{}, fmt.Errorf("netlink receive: a message of %d bytes "+
				"in %d", n, len(b))
		}
		typ, flags, mseq := ne.Uint16(b[4:]), ne.Uint16(b[6:]), ne.Uint32(b[8:])
		data := b[unix.NLMSG_HDRLEN:n]
		b = b[min(len(b), (n+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)):]
		if mseq != seq || typ == unix.NLMSG_NOOP {
			continue
		}
		switch typ {
		case unix.NLMSG_ERROR:
			return false, netip.Addr{}, routeError(data, flags)
		case unix.RTM_NEWROUTE:
			return routeOf(data)
		default:
			return false, netip.Addr{}, fmt.Errorf("netlink receive: a message of type %d "+
				"answered the route question", typ)
		}
	}
	return false, netip.Addr{}, errUnanswered
}

// routeError reads the NLMSG_ERROR answer data, its message's flags
// being flags: nil for no route (routeAnswer), an error wrapping the
// errno the kernel answered otherwise.
func routeError(data []byte, flags uint16) error {
	if len(data) < unix.SizeofNlMsgerr {
		return fmt.Errorf("netlink receive: an error answer of %d bytes, shorter than its "+
			"header", len(data))
	}
	e := int64(int32(binary.NativeEndian.Uint32(data))) // negative: -errno
	switch {
	case e == 0:
		return errors.New("netlink receive: the route question acknowledged, not answered")
	case e > 0:
		return fmt.Errorf("netlink receive: an error answer of %d, not a negative errno", e)
	}
	errno := unix.Errno(-e)
	if flags&unix.NLM_F_ACK_TLVS == 0 && slices.Contains(noRouteErrors, errno) {
		return nil
	}
	if msg := ackMessage(data, flags); msg != "" {
		return fmt.Errorf("the kernel refused the route question (%s): %w", msg, errno)
	}
	return fmt.Errorf("the kernel refused the route question: %w", errno)
}

// ackMessage is the message the kernel gave with the error answer data
// (NLMSGERR_ATTR_MSG), "" where it gave none or it cannot be read. Its
// attributes follow the error and the question's header, and the rest of
// the question where the kernel did not leave it out (NLM_F_CAPPED).
func ackMessage(data []byte, flags uint16) string {
	if flags&unix.NLM_F_ACK_TLVS == 0 || len(data) < unix.SizeofNlMsgerr {
		return ""
	}
	at := unix.SizeofNlMsgerr
	if flags&unix.NLM_F_CAPPED == 0 {
		asked := int(binary.NativeEndian.Uint32(data[4:])) // the question's nlmsg_len
		if asked < unix.NLMSG_HDRLEN || asked > len(data)-4 {
			return ""
		}
		at = 4 + (asked+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1)
	}
	for attrs := data[min(at, len(data)):]; len(attrs) >= unix.SizeofRtAttr; {
		n := int(binary.NativeEndian.Uint16(attrs))
		if n < unix.SizeofRtAttr || n > len(attrs) {
			return ""
		}
		typ := binary.NativeEndian.Uint16(attrs[2:]) &^ attrFlags
		if typ == unix.NLMSGERR_ATTR_MSG {
			msg, _, _ := strings.Cut(string(attrs[unix.SizeofRtAttr:n]), "\x00")
			return strings.ToValidUTF8(msg, "?")
		}
		attrs = attrs[min(len(attrs), (n+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1)):]
	}
	return ""
}

// attrFlags are the flags of an attribute's type (nested, in network
// byte order), not its type.
const attrFlags = unix.NLA_F_NESTED | unix.NLA_F_NET_BYTEORDER

// routeOf reads the RTM_NEWROUTE answer data: whether the route delivers
// here, and its preferred source.
func routeOf(data []byte) (here bool, pref netip.Addr, err error) {
	if len(data) < unix.SizeofRtMsg {
		return false, netip.Addr{}, errors.New("netlink receive: a route shorter than its " +
			"header")
	}
	here = slices.Contains(routedHereTypes, data[7]) // rtm_type
	for attrs := data[unix.SizeofRtMsg:]; len(attrs) > 0; {
		if len(attrs) < unix.SizeofRtAttr {
			return false, netip.Addr{}, fmt.Errorf("netlink receive: %d bytes after a "+
				"route's last attribute", len(attrs))
		}
		n := int(binary.NativeEndian.Uint16(attrs))
		if n < unix.SizeofRtAttr || n > len(attrs) {
			return false, netip.Addr{}, fmt.Errorf("netlink receive: a route's attribute "+
				"of %d bytes in %d", n, len(attrs))
		}
		if binary.NativeEndian.Uint16(attrs[2:])&^attrFlags == unix.RTA_PREFSRC {
			pref, _ = netip.AddrFromSlice(attrs[unix.SizeofRtAttr:n])
		}
		attrs = attrs[min(len(attrs), (n+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1)):]
	}
	return here, pref.Unmap(), nil
}
