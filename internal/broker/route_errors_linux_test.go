package broker

import (
	"encoding/binary"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestBrokerDialsWhereNoRouteLeads: the kernel answers the broker's
// route question with an error where no route leads to an address (no
// route at all, an unreachable, a prohibit or a blackhole route), and
// such an answer is no route, not a question refused: a name answering
// such an address is dialled, and its connection fails as the route
// does (E315, with the error the kernel answers the connection), not
// refused as this machine's (E335). The control: a name whose address is
// routed normally (by a gateway on a veth link) connects, and its
// datagram leaves by the link, as the veth pair's other end sees it. In
// a network namespace of the test's own.
func TestBrokerDialsWhereNoRouteLeads(t *testing.T) {
	if !testkit.InNetworkOfItsOwn(t, "no route leads") {
		return
	}
	run := testkit.IPCommand(t)
	run("link", "set", "lo", "up")
	run("link", "add", "v0", "type", "veth", "peer", "name", "v1")
	run("link", "set", "v0", "up")
	run("link", "set", "v1", "up")
	run("addr", "add", "203.0.113.5/24", "dev", "v0")
	v1, err := net.InterfaceByName("v1")
	if err != nil {
		t.Fatal(err)
	}
	// The gateway is v1's end, known without asking (the datagram is not
	// held for an answer that never comes).
	run("neigh", "add", "203.0.113.1", "lladdr", v1.HardwareAddr.String(), "dev", "v0",
		"nud", "permanent")
	run("route", "add", "198.51.100.0/24", "via", "203.0.113.1")
	run("route", "add", "unreachable", "198.51.101.0/24")
	run("route", "add", "prohibit", "198.51.102.0/24")
	run("route", "add", "blackhole", "198.51.103.0/24")
	seen := linkReader(t, v1.Index)

	const port = "5353"
	tests := []struct {
		name    string
		addr    string
		wantErr unix.Errno // 0: connects
	}{
		{name: "nowhere.example.com", addr: "198.51.104.9", wantErr: unix.ENETUNREACH},
		{name: "unreachable.example.com", addr: "198.51.101.9", wantErr: unix.EHOSTUNREACH},
		{name: "prohibit.example.com", addr: "198.51.102.9", wantErr: unix.EACCES},
		{name: "blackhole.example.com", addr: "198.51.103.9", wantErr: unix.EINVAL},
		{name: "routed.example.com", addr: "198.51.100.9"},
	}
	hosts := map[string][]netip.Addr{}
	for _, tt := range tests {
		hosts[tt.name] = addrs(tt.addr)
	}
	b, c := channel(t, hosts)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			begin(b, "io,net:udp:"+tt.name+":"+port)
			defer b.End()
			conn, err := dial(c, "udp", tt.name+":"+port)
			if tt.wantErr != 0 {
				if err == nil {
					conn.Close()
				}
				if codes.CodeOf(err) != codes.E315 || !strings.Contains(fmtErr(err),
					tt.wantErr.Error()) {
					t.Fatalf("Dial of a name behind %s = %v; want E315, the connection "+
						"failing with %q", tt.addr, err, tt.wantErr.Error())
				}
				return
			}
			if err != nil {
				t.Fatalf("Dial of a name behind %s, routed by the link = %v", tt.addr, err)
			}
			_, err = conn.Write([]byte(tt.name))
			conn.Close()
			if err != nil {
				t.Fatalf("write to %s: %v", tt.addr, err)
			}
			p, _ := strconv.Atoi(port)
			seen(netip.MustParseAddr(tt.addr), uint16(p), tt.name)
		})
	}
}

// fmtErr is err's text, "" for nil.
func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// linkReader reads the IPv4 packets arriving at the interface index (an
// AF_PACKET socket of the test's network namespace); the function it
// returns fails the test unless a UDP datagram to dst, port, holding
// payload, arrives within bounded.
func linkReader(t *testing.T, index int) func(dst netip.Addr, port uint16, payload string) {
	t.Helper()
	proto := binary.NativeEndian.Uint16(binary.BigEndian.AppendUint16(nil, unix.ETH_P_IP))
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, int(proto))
	if err != nil {
		t.Skipf("a packet socket to watch the link: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: proto, Ifindex: index}); err != nil {
		t.Fatalf("bind the packet socket: %v", err)
	}
	tv := unix.NsecToTimeval(time.Second.Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	return func(dst netip.Addr, port uint16, payload string) {
		t.Helper()
		buf := make([]byte, 2048)
		for end := time.Now().Add(bounded); time.Now().Before(end); {
			n, _, err := unix.Recvfrom(fd, buf, 0)
			if err == unix.EAGAIN || err == unix.EINTR {
				continue
			}
			if err != nil {
				t.Fatalf("read the link: %v", err)
			}
			ip := buf[:n]
			if n < 20 || ip[0]>>4 != 4 || ip[9] != unix.IPPROTO_UDP {
				continue
			}
			at := int(ip[0]&0xf) * 4
			if n < at+8 || netip.AddrFrom4([4]byte(ip[16:20])) != dst ||
				binary.BigEndian.Uint16(ip[at+2:]) != port {
				continue
			}
			if got := string(ip[at+8:]); got != payload {
				t.Fatalf("the datagram to %s:%d on the link holds %q; want %q", dst, port, got,
					payload)
			}
			return
		}
		t.Fatalf("no datagram to %s:%d arrived on the link", dst, port)
	}
}
