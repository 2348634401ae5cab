package reach

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"
)

// routedHere returns those of addrs, and of the IPv4 addresses they carry
// (carried), that the kernel routes to this machine itself (routedHereAs):
// every address of its interfaces, every address of a prefix routed to
// it (ip route add local 198.51.100.0/24 dev lo, as anycast and
// transparent proxies set up), which no interface lists, and a broadcast
// or anycast address of one of its networks: a name that answered
// 198.51.100.9 there reached every service listening on all the
// machine's addresses. Each is asked of the kernel over one netlink
// socket, as this process would be routed to it (its user's rules).
func routedHere(addrs []netip.Addr) ([]netip.Addr, error) {
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
			here, err := routedHereAs(fd, f, &seq)
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
// on IPv4 every time and on IPv6 where the first route failed. An
// address reached from neither is routed elsewhere or nowhere, and a
// connection there leaves the machine or fails as the lookup did.
func routedHereAs(fd int, a netip.Addr, seq *uint32) (bool, error) {
	*seq++
	here, err := routedLocal(fd, a, netip.Addr{}, *seq)
	if err != nil || here {
		return here, err
	}
	src, ok, err := sourceOf(a)
	if err != nil || !ok {
		return false, err
	}
	*seq++
	return routedLocal(fd, a, src, *seq)
}

// sourceOf is the source address the kernel takes for a connection to
// a: that of a UDP socket connected there, which sends nothing (the
// kernel routes it as it routes a TCP connection). ok is false where no
// route leads to a: a connection fails there too.
func sourceOf(a netip.Addr) (src netip.Addr, ok bool, err error) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, 9)))
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
// to a (RTM_GETROUTE, request seq), from src where it is valid, and
// reports whether it is of a type that delivers here (routedHereTypes).
// No route (an error the kernel answers, ENETUNREACH say) is none: a
// connection there fails as the lookup did, or takes a source and is
// asked of again (routedHereAs).
func routedLocal(fd int, a, src netip.Addr, seq uint32) (bool, error) {
	family := byte(unix.AF_INET)
	if a.Is6() {
		family = unix.AF_INET6
	}
	dst := a.AsSlice()
	attr := unix.SizeofRtAttr + len(dst) // each attribute as long as RTA_DST's
	attrs := 1
	if src.IsValid() {
		attrs = 2
	}
	req := make([]byte, unix.NLMSG_HDRLEN+unix.SizeofRtMsg+attrs*attr)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))  // nlmsg_len
	ne.PutUint16(req[4:], unix.RTM_GETROUTE) // nlmsg_type
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(req[8:], seq)
	msg := req[unix.NLMSG_HDRLEN:]
	msg[0], msg[1] = family, byte(8*len(dst)) // rtm_family, rtm_dst_len
	rta := msg[unix.SizeofRtMsg:]
	ne.PutUint16(rta[0:], uint16(attr))
	ne.PutUint16(rta[2:], unix.RTA_DST)
	copy(rta[unix.SizeofRtAttr:], dst)
	if src.IsValid() {
		msg[2] = msg[1] // rtm_src_len
		rta = rta[attr:]
		ne.PutUint16(rta[0:], uint16(attr))
		ne.PutUint16(rta[2:], unix.RTA_SRC)
		copy(rta[unix.SizeofRtAttr:], src.AsSlice())
	}
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return false, fmt.Errorf("netlink send: %w", err)
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("netlink receive: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return false, fmt.Errorf("netlink receive: %w", err)
		}
		for _, m := range msgs {
			if m.Header.Seq != seq {
				continue // an answer to an earlier question
			}
			switch m.Header.Type {
			case unix.NLMSG_ERROR:
				return false, nil
			case unix.RTM_NEWROUTE:
				if len(m.Data) < unix.SizeofRtMsg {
					return false, errors.New("netlink receive: a route shorter than its header")
				}
				return slices.Contains(routedHereTypes, m.Data[7]), nil // rtm_type
			}
		}
	}
}
