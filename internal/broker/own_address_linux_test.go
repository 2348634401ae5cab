package broker

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// ownAddress is the public address the test gives this machine, in a
// network namespace of its own: a documentation address, routed nowhere.
const ownAddress = "198.51.100.7"

// inNetworkOfItsOwn reports whether the test runs in a network namespace
// of its own; where it does not, it runs it again, as the process named
// by name, in a new one (as root), and the caller returns.
func inNetworkOfItsOwn(t *testing.T, name string) bool {
	t.Helper()
	if os.Getenv(testkit.OwnProcessEnv) == name {
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of the test's own needs root here")
	}
	testkit.Rerun(t, name, func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	})
	return false
}

// TestBrokerRefusesThisMachinesAddress: a name that answers with one of
// this machine's own public addresses would reach every service it
// listens with on all its addresses, as loopback would. In a network
// namespace of the test's own, whose loopback interface also holds a
// public address, a listener on that address sees no connection under
// a grant of the name, and sees one under a grant of the address itself.
func TestBrokerRefusesThisMachinesAddress(t *testing.T) {
	if !inNetworkOfItsOwn(t, "own address") {
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
	if !inNetworkOfItsOwn(t, "routed here") {
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
