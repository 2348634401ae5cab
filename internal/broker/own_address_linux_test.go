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

// TestBrokerRefusesThisMachinesAddress: a name that answers with one of
// this machine's own public addresses would reach every service it
// listens with on all its addresses, as loopback would. In a network
// namespace of the test's own, whose loopback interface also holds a
// public address, a listener on that address sees no connection under
// a grant of the name, and sees one under a grant of the address itself.
func TestBrokerRefusesThisMachinesAddress(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) != "own address" {
		if os.Geteuid() != 0 {
			t.Skip("a network namespace of the test's own needs root here")
		}
		testkit.Rerun(t, "own address", func(c *exec.Cmd) {
			c.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
		})
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
