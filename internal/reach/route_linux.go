package reach

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// routedHere returns those of addrs, and of the IPv4 addresses they carry
// (carried), that the kernel routes to this machine itself: a route of
// type local, as ip route get shows it. That is every address of its
// interfaces, and every address of a prefix routed to it (ip route add
// local 198.51.100.0/24 dev lo, as anycast and transparent proxies set
// up), which no interface lists: a name that answered 198.51.100.9 there
// reached every service listening on all the machine's addresses. Each is
// asked of the kernel over one netlink socket, as this process would be
// routed to it (its user's rules).
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
			seq++
			local, err := routedLocal(fd, f, seq)
			if err != nil {
				return nil, fmt.Errorf("route to %s: %w", f, err)
			}
			if local {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// routedLocal asks the kernel, over the netlink socket fd, for its route
// to a (RTM_GETROUTE, request seq) and reports whether it is of type
// local. No route (an error the kernel answers, ENETUNREACH say) is none:
// a connection there fails as the lookup did.
func routedLocal(fd int, a netip.Addr, seq uint32) (bool, error) {
	family := byte(unix.AF_INET)
	if a.Is6() {
		family = unix.AF_INET6
	}
	dst := a.AsSlice()
	attr := unix.SizeofRtAttr + len(dst)
	req := make([]byte, unix.NLMSG_HDRLEN+unix.SizeofRtMsg+attr)
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
				return m.Data[7] == unix.RTN_LOCAL, nil // rtm_type
			}
		}
	}
}
