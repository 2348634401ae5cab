package broker

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/reach"
	"github.com/sabline/sabline/internal/testkit"
)

// ownAddress is the public address the test gives this machine, in a
// network namespace of its own: a documentation address, routed nowhere.
const ownAddress = "198.51.100.7"

// TestBrokerRefusesThisMachinesAddress: a name that answers with one of
// this machine's own public addresses would reach every service it
// listens with on all its addresses, as loopback would. In a network
// namespace of the test's own, whose loopback interface also holds a
// public address, a listener on that address sees no connection under
// a grant of the name, and sees one under a grant of the address itself.
func TestBrokerRefusesThisMachinesAddress(t *testing.T) {
	if !testkit.InNetworkOfItsOwn(t, "own address") {
		return
	}
	if err := holdAddress(ownAddress); err != nil {
		t.Skipf("give this namespace's loopback interface %s: %v", ownAddress, err)
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ownAddress, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	b, c := channel(t, map[string][]netip.Addr{"api.example.com": addrs(ownAddress)})

	// The name: refused, and nothing arrived.
	begin(b, "io,net:api.example.com:"+port)
	conn, err := dial(c, "tcp", "api.example.com:"+port)
	if err == nil {
		conn.Close()
	}
	if codes.CodeOf(err) != codes.E335 {
		t.Fatalf("Dial of a name behind this machine's %s = %v; want E335", ownAddress, err)
	}
	nothingArrived(t, l)
	if list, _ := b.End(); len(list) != 1 || list[0].Code != codes.E335 {
		t.Fatalf("End = %+v; want the refusal listed", list)
	}

	// The positive control: the address granted by itself is reached.
	begin(b, "io,net:"+ownAddress+":"+port)
	connects(t, c, l, ownAddress+":"+port)
	b.End()
}

// holdAddress brings this network namespace's loopback interface up and
// gives it addr as well, as an alias (lo:1).
func holdAddress(addr string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	up, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, up); err != nil {
		return err
	}
	up.SetUint16(up.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, up); err != nil {
		return err
	}
	alias, err := unix.NewIfreq("lo:1")
	if err != nil {
		return err
	}
	a := netip.MustParseAddr(addr).As4()
	if err := alias.SetInet4Addr(a[:]); err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFADDR, alias); err != nil {
		return errors.Join(errors.New("SIOCSIFADDR"), err)
	}
	return nil
}

// TestBrokerRefusesAnAddressRoutedHere: a prefix the kernel routes to
// this machine (ip route add local 198.51.100.0/24 dev lo, as anycast and
// transparent proxies set up) makes each of its addresses this machine's
// own, though no interface lists them: a name that answered 198.51.100.9
// reached a listener on all this machine's addresses under a grant of the
// name. In a network namespace of the test's own, that listener now sees
// no connection under a grant of the name (E335), and one under a grant
// of the address itself; so do names answering the address in its
// IPv4-mapped form (::ffff:198.51.100.9, which the kernel is asked as the
// IPv4 address) and a 6to4 address that carries it (2002:c633:6409::1,
// judged by the address it carries). A name answering an address outside
// the prefix (routed nowhere here) is not refused as this machine's: its
// connection fails (E315).
func TestBrokerRefusesAnAddressRoutedHere(t *testing.T) {
	const routed, inside, outside = "198.51.100.0/24", "198.51.100.9", "198.51.101.9"
	if !testkit.InNetworkOfItsOwn(t, "routed here") {
		return
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skipf("no ip command (iproute2) to route a prefix to this namespace: %v", err)
	}
	for _, args := range [][]string{{"link", "set", "lo", "up"},
		{"route", "add", "local", routed, "dev", "lo"}} {
		if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
			t.Skipf("ip %v: %v\n%s", args, err, out)
		}
	}
	l, err := net.Listen("tcp", ":0") // every address of this machine's
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	b, c := channel(t, map[string][]netip.Addr{"api.example.com": addrs(inside),
		"mapped.example.com": addrs("::ffff:" + inside),
		"6to4.example.com":   addrs("2002:c633:6409::1"), // 198.51.100.9 carried
		"far.example.com":    addrs(outside)})

	// The names: refused, and nothing arrived.
	for _, name := range []string{"api.example.com", "mapped.example.com", "6to4.example.com"} {
		begin(b, "io,net:"+name+":"+port)
		conn, err := dial(c, "tcp", name+":"+port)
		if err == nil {
			conn.Close()
		}
		if codes.CodeOf(err) != codes.E335 {
			t.Fatalf("Dial of %s, behind %s of the prefix routed here = %v; want E335", name,
				inside, err)
		}
		nothingArrived(t, l)
		b.End()
	}
	// The question before the dial refuses each too, the check of the
	// port a connection takes aside (reach.Control would refuse an
	// address the first let by, and hide it).
	for _, a := range []string{inside, "::ffff:" + inside, "2002:c633:6409::1"} {
		n, _ := strconv.Atoi(port)
		if _, err := reach.Check("tcp", "api.example.com", n, addrs(a)); codes.CodeOf(err) !=
			codes.E335 {
			t.Errorf("reach.Check of a name behind %s = %v; want E335", a, err)
		}
	}

	// The controls: the address granted by itself is reached; a name
	// outside the prefix is dialled, and fails as the route does.
	begin(b, "io,net:"+inside+":"+port)
	connects(t, c, l, inside+":"+port)
	b.End()
	begin(b, "io,net:far.example.com:"+port)
	conn, err := dial(c, "tcp", "far.example.com:"+port)
	if err == nil {
		conn.Close()
	}
	if codes.CodeOf(err) != codes.E315 {
		t.Fatalf("Dial of a name behind %s, routed nowhere = %v; want E315", outside, err)
	}
	b.End()
}

// TestBrokerRefusesWhatIsDeliveredHere: an address is this machine's own
// wherever the kernel delivers a connection to it here, not only where
// its route is of type local: a broadcast address of one of its networks
// (203.0.113.255 of 203.0.113.5/24), IPv6's subnet-router anycast address
// of one (2606:4700:10:: of 2606:4700:10::5/64 on a machine that
// forwards), and an address a rule of the operator's sends to a table
// with a local route for the source a connection takes (ip rule add from
// 203.0.113.5 lookup 100), which the kernel routes by once it has chosen
// the source (on IPv6 where no other route leads there). Under a grant of
// a name answering each, a UDP datagram reached a listener on all this
// machine's addresses. In a network namespace of the test's own, each
// is refused (E335), and the same address granted by itself is reached.
func TestBrokerRefusesWhatIsDeliveredHere(t *testing.T) {
	if !testkit.InNetworkOfItsOwn(t, "delivered here") {
		return
	}
	run := testkit.IPCommand(t)
	if err := os.WriteFile("/proc/sys/net/ipv6/conf/all/forwarding", []byte("1"),
		0); err != nil {
		t.Skipf("have this namespace forward IPv6, as a router does: %v", err)
	}
	for _, args := range [][]string{{"link", "set", "lo", "up"},
		{"link", "add", "v0", "type", "veth", "peer", "name", "v1"},
		{"link", "set", "v0", "up"}, {"link", "set", "v1", "up"},
		{"addr", "add", "203.0.113.5/24", "dev", "v0"},
		{"addr", "add", "2606:4700:10::5/64", "dev", "v0", "nodad"},
		{"route", "add", "default", "via", "203.0.113.1"},
		{"route", "add", "local", "198.51.100.0/24", "dev", "lo", "table", "100"},
		{"rule", "add", "from", "203.0.113.5", "lookup", "100"},
		{"-6", "route", "add", "local", "2606:4700:99::/48", "dev", "lo", "table", "100"},
		{"-6", "rule", "add", "from", "2606:4700:10::5", "lookup", "100"}} {
		run(args...)
	}
	pc, err := net.ListenPacket("udp", ":0") // every address of this machine's
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	cases := map[string]string{
		"broadcast.example.com": "203.0.113.255",
		"anycast.example.com":   "2606:4700:10::",
		"source.example.com":    "198.51.100.9",
		"source6.example.com":   "2606:4700:99::9",
	}
	hosts := map[string][]netip.Addr{}
	for name, a := range cases {
		hosts[name] = addrs(a)
	}
	b, c := channel(t, hosts)
	for name, a := range cases {
		// The name: refused before any socket is made.
		begin(b, "io,net:udp:"+name+":"+port)
		conn, err := dial(c, "udp", name+":"+port)
		if err == nil {
			_, _ = conn.Write([]byte(name))
			conn.Close()
		}
		if codes.CodeOf(err) != codes.E335 {
			t.Errorf("Dial of %s, behind %s, which is delivered here = %v; want E335", name, a,
				err)
		}
		b.End()

		// The control: the address granted by itself reaches the listener.
		reachedGranted(t, b, c, pc, net.JoinHostPort(a, port), a, func(got string) bool {
			_, ok := cases[got]
			return ok
		})
	}
}

// TestBrokerRefusesWhatARuleByPortRoutesHere: a rule of the operator's
// may choose a route by a connection's protocol and ports (ip rule add
// ipproto tcp dport 8080 lookup 100, or sport 32768-60999, the ports
// connections take, where table 100 holds a local route, as a
// transparent proxy sets up), and the kernel routes a connection there
// to this machine, though a question naming neither port finds another
// route. Under a grant of a name answering 198.51.102.9, such a
// connection reached a listener on all this machine's addresses (a
// transparent one, which answers for an address no interface holds). In
// a network namespace of the test's own, it is refused (E335) under
// either rule, and nothing arrives; the same address granted by itself
// is reached.
func TestBrokerRefusesWhatARuleByPortRoutesHere(t *testing.T) {
	const inside = "198.51.102.9"
	if !testkit.InNetworkOfItsOwn(t, "routed here by port") {
		return
	}
	run := testkit.IPCommand(t)
	vethDefault(run)
	run("route", "add", "local", "198.51.102.0/24", "dev", "lo", "table", "100", "src",
		"203.0.113.5")
	ports, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skipf("the ports connections take: %v", err)
	}
	l, port := transparentListener(t)
	b, c := channel(t, map[string][]netip.Addr{"proxied.example.com": addrs(inside)})
	for _, by := range [][]string{{"dport", port},
		{"sport", strings.Join(strings.Fields(string(ports)), "-")}} {
		rule := append([]string{"rule", "add", "ipproto", "tcp"}, append(by, "lookup", "100")...)
		run(rule...)

		// The name: refused, and nothing arrived.
		begin(b, "io,net:proxied.example.com:"+port)
		conn, err := dial(c, "tcp", "proxied.example.com:"+port)
		if err == nil {
			conn.Close()
		}
		if codes.CodeOf(err) != codes.E335 {
			t.Fatalf("Dial of a name behind %s, which a rule by %s routes here = %v; want E335",
				inside, by[0], err)
		}
		nothingArrived(t, l)
		b.End()

		// The control: the address granted by itself is reached.
		begin(b, "io,net:"+inside+":"+port)
		connects(t, c, l, inside+":"+port)
		b.End()
		rule[1] = "del"
		run(rule...)
	}
}

// transparentListener listens for TCP on every address of this machine's
// and, being transparent (IP_TRANSPARENT), answers for an address a local
// route delivers here that no interface holds; it is closed when t ends.
// port is its port.
func transparentListener(t *testing.T) (l net.Listener, port string) {
	t.Helper()
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_IP, unix.IP_TRANSPARENT, 1)
		})
		return errors.Join(err, serr)
	}}
	l, err := lc.Listen(t.Context(), "tcp", ":0")
	if err != nil {
		t.Skipf("a transparent listener: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	return l, strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// vethDefault gives the test's network namespace, through run (testkit.IPCommand),
// loopback, a veth pair whose end v0 holds 203.0.113.5/24, and a default
// route by 203.0.113.1: a machine with an address and a way out.
func vethDefault(run func(args ...string)) {
	run("link", "set", "lo", "up")
	run("link", "add", "v0", "type", "veth", "peer", "name", "v1")
	run("link", "set", "v0", "up")
	run("link", "set", "v1", "up")
	run("addr", "add", "203.0.113.5/24", "dev", "v0")
	run("route", "add", "default", "via", "203.0.113.1")
}

// reachedGranted grants hostPort by itself, sends it payload over UDP
// through the broker, and reads pc, a listener on all this machine's
// addresses, until payload comes, failing t for each datagram before it
// that was sent under a grant of a name (byName).
func reachedGranted(t *testing.T, b *Broker, c *Client, pc net.PacketConn, hostPort,
	payload string, byName func(string) bool) {
	t.Helper()
	begin(b, "io,net:udp:"+hostPort)
	defer b.End()
	conn, err := dial(c, "udp", hostPort)
	if err != nil {
		t.Fatalf("Dial of %s granted by itself: %v", hostPort, err)
	}
	_, err = conn.Write([]byte(payload))
	conn.Close()
	if err != nil {
		t.Fatalf("write to %s: %v", hostPort, err)
	}
	buf := make([]byte, 64)
	for {
		_ = pc.SetReadDeadline(time.Now().Add(bounded))
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("the listener on all addresses, waiting for %q: %v", payload, err)
		}
		if got := string(buf[:n]); got == payload {
			return
		} else if byName(got) {
			t.Errorf("the listener on all addresses read a datagram sent under a grant of "+
				"a name: %q", got)
		}
	}
}
