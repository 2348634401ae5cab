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
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
	defer unix.Close(fd)
	// The kernel answers before its send returns; a second bounds a wait
	// for an answer that never comes.
	tv := unix.Timeval{Sec: 1}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return nil, fmt.Errorf("netlink socket: %w", err)
	}
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
			"not be read (%v), so it is not reached behind a name: grant the address itself",
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
// no route leads to a: a connection fails there too.
func sourceOf(a netip.Addr, port uint16) (src netip.Addr, ok bool, err error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, max(port, 1))))
	switch {
	case errors.Is(err, unix.ENETUNREACH), errors.Is(err, unix.EHOSTUNREACH),
		errors.Is(err, unix.EACCES), errors.Is(err, unix.EINVAL):
		return netip.Addr{}, false, nil // no route, a prohibit or a blackhole
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

// routedLocal asks the kernel, over the netlink socket fd, for its route
// to a (RTM_GETROUTE, request seq), from src where it is valid, for the
// connection c (its protocol and port), and reports whether it is of a
// type that delivers here (routedHereTypes), and the source the route
// takes (RTA_PREFSRC), invalid where it names none.
// No route (an error the kernel answers, ENETUNREACH say) is none: a
// connection there fails as the lookup did, or takes a source and is
// asked of again (routedHereAs).
func routedLocal(fd int, a, src netip.Addr, c connection,
	seq uint32) (here bool, pref netip.Addr, err error) {
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
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return false, netip.Addr{}, fmt.Errorf("netlink receive: %w", err)
		}
		for _, m := range msgs {
			if m.Header.Seq != seq {
				continue // an answer to an earlier question
			}
			switch m.Header.Type {
			case unix.NLMSG_ERROR:
				return false, netip.Addr{}, nil
			case unix.RTM_NEWROUTE:
				if len(m.Data) < unix.SizeofRtMsg {
					return false, netip.Addr{}, errors.New("netlink receive: a route " +
						"shorter than its header")
				}
				here := slices.Contains(routedHereTypes, m.Data[7]) // rtm_type
				attrs, err := syscall.ParseNetlinkRouteAttr(&m)
				if err != nil {
					return false, netip.Addr{}, fmt.Errorf("netlink receive: %w", err)
				}
				for _, at := range attrs {
					if at.Attr.Type == unix.RTA_PREFSRC {
						pref, _ = netip.AddrFromSlice(at.Value)
					}
				}
				return here, pref.Unmap(), nil
			}
		}
	}
}
