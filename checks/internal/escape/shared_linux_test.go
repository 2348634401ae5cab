package escape

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/internal/testkit"
)

// TestSharedPortOfItsOwn: the receiver of $SHARED is bound to a port no
// other socket holds, though every other port it might be given is held
// by a socket set as a receiver is (another receiver, made by a run side
// by side). Before, bound to port 0 with SO_REUSEADDR and SO_REUSEPORT
// set, it was given such a port as often as a free one: the other socket
// took some of its datagrams, and its witness changed with no run made.
// The test runs in a network namespace of its own, whose range of ports
// to give is narrowed to 32, 15 of them held: 17 left for the receiver
// and its senders. The control: a socket that binds the receiver's port,
// as a run that shares it does, still takes some of its datagrams, and
// the receiver misses them.
func TestSharedPortOfItsOwn(t *testing.T) {
	runtime.LockOSThread() // never unlocked: the thread ends with the test
	before, err := os.Readlink("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		t.Skipf("no network namespace of the test's own: %v", err)
	}
	if own, err := os.Readlink("/proc/thread-self/ns/net"); err != nil || own == before {
		t.Fatalf("the test's thread is in %q (%v), as before: want a namespace of its own",
			own, err)
	}
	if err := loopbackUp(); err != nil {
		t.Fatal(err)
	}
	// The range of the thread's own namespace: /proc/sys/net is that of
	// the task that opens it.
	// Ports first to held-1 are held; the range ends at last-1.
	const first, held, last = 40000, 40015, 40032
	err = os.WriteFile("/proc/sys/net/ipv4/ip_local_port_range",
		fmt.Appendf(nil, "%d %d", first, last-1), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	lc := net.ListenConfig{Control: shareable}
	share := func(port int) net.PacketConn {
		c, err := lc.ListenPacket(context.Background(), "udp4", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for port := first; port < held; port++ {
		defer share(port).Close()
	}
	for i := range 30 {
		sp, err := startShared()
		if err != nil {
			t.Fatal(err)
		}
		port, _ := strconv.Atoi(sp.port())
		n, err := sp.missed()
		sp.close()
		if port < held || err != nil || n != 0 {
			t.Fatalf("receiver %d: port %d, missed() = %d, %v; want a port no other socket "+
				"holds (%d to %d), 0 missed", i, port, n, err, held, last-1)
		}
	}
	// The control: a socket bound beside the receiver takes datagrams the
	// receiver misses.
	sp, err := startShared()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	port, _ := strconv.Atoi(sp.port())
	defer share(port).Close()
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		n, err := sp.missed()
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a socket bound beside the receiver took none of %d datagrams", sp.sent)
		}
		time.Sleep(sharedEvery)
	}
}

// loopbackUp brings up the loopback interface of the calling thread's
// network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: SIOCGIFFLAGS: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback: SIOCSIFFLAGS: %w", err)
	}
	return nil
}
