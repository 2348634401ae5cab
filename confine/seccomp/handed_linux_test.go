package seccomp

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Under HandedSockets the worker's supervisor makes each connection and
// hands the connected socket in over a Unix SOCK_SEQPACKET channel with
// SCM_RIGHTS (internal/broker). TestSeccompKernel plays the supervisor's
// part for each scenario's child: it connects a TCP socket to its line
// listener and a UDP socket to its datagram listener itself, and hands
// both over such a channel, the child's descriptor brokerFD, before the
// child starts.

// brokerFD is the child's end of the broker channel: the first of
// exec.Cmd's ExtraFiles.
const brokerFD = 3

// handedMessage and handedUDPMessage are what the supervisor's messages
// on the channel say beside the TCP and the UDP socket they carry.
const (
	handedMessage    = "conn"
	handedUDPMessage = "udp"
)

// handedDatagram is what the child sends on the handed UDP socket;
// controlDatagram and escapeDatagram what it sends to the untouched
// datagram listener's address, before the filter (the control, which
// arrives) and under it (which must not).
const (
	handedDatagram  = "a datagram over the handed socket"
	controlDatagram = "control"
	escapeDatagram  = "escape"
)

// handedLine is what the child writes on the handed socket, and byeLine
// what the line listener answers once the child's side of it ended.
const (
	handedLine = "a line over the handed socket\n"
	byeLine    = "bye\n"
)

// seccompLineEnv and seccompUntouchedEnv name, in the child's
// environment, the addresses of the line listener, which the handed
// socket is connected to, and of the untouched listener, which the child
// tries to reach with the handed socket and must not.
const (
	seccompLineEnv      = "SABLINE_SECCOMP_LINE"
	seccompUntouchedEnv = "SABLINE_SECCOMP_UNTOUCHED"
)

// seccompDatagramEnv and seccompUntouchedUDPEnv name the addresses of
// the datagram listener, which the handed UDP socket is connected to,
// and of the untouched datagram listener.
const (
	seccompDatagramEnv     = "SABLINE_SECCOMP_DATAGRAM"
	seccompUntouchedUDPEnv = "SABLINE_SECCOMP_UNTOUCHED_UDP"
)

// lineListener is a loopback listener that reads each connection to its
// end, then answers byeLine, and reports what it read on got.
type lineListener struct {
	addr string
	got  chan string
}

func serveLines(t *testing.T) lineListener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("line listener: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	ll := lineListener{addr: l.Addr().String(), got: make(chan string, 8)}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, err := io.ReadAll(c)
				if err != nil {
					ll.got <- fmt.Sprintf("read error: %v (after %q)", err, b)
					return
				}
				c.Write([]byte(byeLine))
				ll.got <- string(b)
			}()
		}
	}()
	return ll
}

// next is what the listener read of its next connection to end.
func (ll lineListener) next(t *testing.T) string {
	t.Helper()
	select {
	case s := <-ll.got:
		return s
	case <-time.After(30 * time.Second):
		t.Fatal("the line listener's connection did not end")
		return ""
	}
}

// serveUntouched counts the connections a loopback listener accepts,
// closing each.
func serveUntouched(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("untouched listener: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return l.Addr().String(), &n
}

// datagramListener is a loopback UDP socket that reports each datagram
// it receives on got.
type datagramListener struct {
	conn net.PacketConn
	got  chan string
}

func serveDatagrams(t *testing.T) datagramListener {
	t.Helper()
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("datagram listener: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	dl := datagramListener{conn: c, got: make(chan string, 64)}
	go func() {
		buf := make([]byte, 2048)
		for {
			n, _, err := c.ReadFrom(buf)
			if err != nil {
				return
			}
			dl.got <- string(buf[:n])
		}
	}()
	return dl
}

// received is every datagram the listener received so far: it sends
// itself a marker and collects what arrives before it, which on one
// socket is all that was sent to it before.
func (dl datagramListener) received(t *testing.T) []string {
	t.Helper()
	const marker = "marker"
	c, err := net.Dial("udp4", dl.conn.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(marker)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		select {
		case s := <-dl.got:
			if s == marker {
				return got
			}
			got = append(got, s)
		case <-time.After(30 * time.Second):
			t.Fatal("the marker datagram did not arrive")
			return nil
		}
	}
}

// handIn plays the supervisor: it connects a TCP socket to tcpAddr and
// a UDP socket to udpAddr, sends each with its message over a new
// SOCK_SEQPACKET pair, keeping no copy of either, and returns the pair's
// other end, the child's channel.
func handIn(t *testing.T, tcpAddr, udpAddr string) *os.File {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("socketpair: %v", err)
	}
	defer unix.Close(fds[0])
	for _, h := range []struct{ network, addr, message string }{
		{"tcp4", tcpAddr, handedMessage}, {"udp4", udpAddr, handedUDPMessage},
	} {
		c, err := net.Dial(h.network, h.addr)
		if err != nil {
			t.Fatalf("dial %s: %v", h.addr, err)
		}
		f, err := c.(interface{ File() (*os.File, error) }).File()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		err = unix.Sendmsg(fds[0], []byte(h.message), unix.UnixRights(int(f.Fd())), nil, 0)
		f.Close()
		if err != nil {
			t.Fatalf("hand the %s socket in: %v", h.network, err)
		}
	}
	return os.NewFile(uintptr(fds[1]), "broker")
}

// recvHanded receives one message of the supervisor's on channel ch,
// which must say message, and returns the one descriptor it carries.
func recvHanded(ch, flags int, message string) (int, error) {
	buf := make([]byte, 64)
	oob := make([]byte, unix.CmsgSpace(4))
	n, oobn, rflags, _, err := unix.Recvmsg(ch, buf, oob, flags|unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("%d control messages, %v", len(msgs), err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	switch {
	case err != nil:
		return -1, err
	case len(fds) != 1:
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, fmt.Errorf("%d descriptors in the message, want 1", len(fds))
	case rflags&(unix.MSG_CTRUNC|unix.MSG_TRUNC) != 0 || string(buf[:n]) != message:
		unix.Close(fds[0])
		return -1, fmt.Errorf("message %q, flags %#x", buf[:n], rflags)
	}
	return fds[0], nil
}

// peekBroker peeks at the supervisor's message, which installs a copy
// of the socket it carries, closed at once, and leaves the message.
func peekBroker(e *childEnv) error {
	fd, err := recvHanded(e.broker, unix.MSG_PEEK, handedMessage)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// target is the socket the checks on the handed socket use: the one
// received, or before it arrives (the controls, before the filter) the
// stand-in, a UDP socket on which each of those calls works without
// reaching a listener, since it sends no datagram to a TCP port's peer.
func (e *childEnv) target() int {
	if e.handed >= 0 {
		return e.handed
	}
	return e.standIn
}

// targetUDP is as target, for the checks on the handed UDP socket, with
// a stand-in of their own.
func (e *childEnv) targetUDP() int {
	if e.handedUDP >= 0 {
		return e.handedUDP
	}
	return e.standInUDP
}

// untouched is the untouched listener's address, as a connect takes it.
func untouched() (*unix.SockaddrInet4, error) {
	return inet4(os.Getenv(seccompUntouchedEnv))
}

// inet4 is the IPv4 address and port addr, as a connect takes it.
func inet4(addr string) (*unix.SockaddrInet4, error) {
	a, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return nil, err
	}
	sa := &unix.SockaddrInet4{Port: a.Port}
	copy(sa.Addr[:], a.IP.To4())
	return sa, nil
}

// unspec is a sockaddr of AF_UNSPEC (0): connect to it disconnects a TCP
// or UDP socket, which may then connect anywhere.
var unspec [16]byte

// handedChecks receive the socket TestSeccompKernel handed in, use it as
// net.FileConn does and as a run's connection does, and try to make it
// reach what the supervisor did not connect it to. In this order: the
// socket is received first, the refusals come before the line is
// written (which shows the socket still connected where it was), and
// the shutdown last.
func handedChecks() []kernelCheck {
	eperm := unix.EPERM
	return []kernelCheck{
		{name: "recvmsg: a connected TCP socket over SCM_RIGHTS", call: func(e *childEnv) error {
			fd, err := recvHanded(e.broker, 0, handedMessage)
			if err != nil {
				return err
			}
			e.handed = fd
			typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
			if err != nil || typ != unix.SOCK_STREAM {
				return fmt.Errorf("SO_TYPE = %d, %v; want SOCK_STREAM", typ, err)
			}
			return nil
		}},
		{name: "net.FileConn of the handed socket: SO_TYPE, getsockname, getpeername, fcntl",
			call: func(e *childEnv) error {
				if e.handed < 0 {
					return errors.New("no socket was handed in")
				}
				e.handedFile = os.NewFile(uintptr(e.handed), "handed")
				c, err := net.FileConn(e.handedFile)
				if err != nil {
					return err
				}
				e.conn = c
				local, ok := c.LocalAddr().(*net.TCPAddr)
				if !ok || !local.IP.IsLoopback() || c.RemoteAddr().String() != os.Getenv(seccompLineEnv) {
					return fmt.Errorf("a connection from %v to %v, want one to %s",
						c.LocalAddr(), c.RemoteAddr(), os.Getenv(seccompLineEnv))
				}
				return nil
			}},
		// By the syscall package, as net.FileConn, which ignores its
		// errors. (x/sys/unix's Getpeername reads SO_PROTOCOL too, which
		// the filter refuses.)
		{name: "getpeername of the handed socket", call: func(e *childEnv) error {
			sa, err := syscall.Getpeername(e.handed)
			if err != nil {
				return err
			}
			want, err := net.ResolveTCPAddr("tcp4", os.Getenv(seccompLineEnv))
			if in4, ok := sa.(*syscall.SockaddrInet4); err != nil || !ok || in4.Port != want.Port {
				return fmt.Errorf("peer %#v, want %v (%v)", sa, want, err)
			}
			return nil
		}},
		{name: "setsockopt(IPPROTO_TCP, TCP_NODELAY) on the handed socket", want: eperm, works: true,
			call: func(e *childEnv) error {
				level, opt := unix.IPPROTO_TCP, unix.TCP_NODELAY
				if e.handed < 0 { // the stand-in is UDP
					level, opt = unix.SOL_SOCKET, unix.SO_KEEPALIVE
				}
				return unix.SetsockoptInt(e.target(), level, opt, 1)
			}},
		{name: "sendto the untouched listener's address on the handed socket", want: eperm, works: true,
			call: func(e *childEnv) error {
				sa, err := untouched()
				if err != nil {
					return err
				}
				return unix.Sendto(e.target(), []byte("x"), unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, sa)
			}},
		{name: "connect(AF_UNSPEC) on the handed socket, which would disconnect it",
			want: eperm, works: true,
			call: func(e *childEnv) error {
				_, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(e.target()),
					uintptr(unsafe.Pointer(&unspec[0])), uintptr(len(unspec)))
				return errnoOf(errno)
			}},
		{name: "connect the handed socket to the untouched listener", want: eperm, works: true,
			call: func(e *childEnv) error {
				sa, err := untouched()
				if err != nil {
					return err
				}
				return unix.Connect(e.target(), sa)
			}},
		{name: "sendmsg on the broker channel, passing the socket back", want: eperm,
			call: func(e *childEnv) error {
				return unix.Sendmsg(e.broker, []byte(handedMessage), unix.UnixRights(e.target()), nil,
					unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
			}},
		{name: "write a line on the handed socket", call: func(e *childEnv) error {
			if e.conn == nil {
				return errors.New("no connection")
			}
			_, err := e.conn.Write([]byte(handedLine))
			return err
		}},
		{name: "recvmsg: a connected UDP socket over SCM_RIGHTS", call: func(e *childEnv) error {
			fd, err := recvHanded(e.broker, 0, handedUDPMessage)
			if err != nil {
				return err
			}
			e.handedUDP = fd
			typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
			if err != nil || typ != unix.SOCK_DGRAM {
				return fmt.Errorf("SO_TYPE = %d, %v; want SOCK_DGRAM", typ, err)
			}
			return nil
		}},
		{name: "net.FileConn of the handed UDP socket", call: func(e *childEnv) error {
			if e.handedUDP < 0 {
				return errors.New("no UDP socket was handed in")
			}
			e.handedUDPFile = os.NewFile(uintptr(e.handedUDP), "handed UDP")
			c, err := net.FileConn(e.handedUDPFile)
			if err != nil {
				return err
			}
			e.udpConn = c
			if got, want := c.RemoteAddr().String(), os.Getenv(seccompDatagramEnv); got != want {
				return fmt.Errorf("a UDP socket connected to %s, want %s", got, want)
			}
			return nil
		}},
		// Before the filter the stand-in sends controlDatagram, which the
		// untouched datagram listener must receive; under it, the handed
		// socket's escapeDatagram must not arrive.
		{name: "sendto the untouched datagram listener on the handed UDP socket", want: eperm,
			works: true, call: func(e *childEnv) error {
				sa, err := inet4(os.Getenv(seccompUntouchedUDPEnv))
				if err != nil {
					return err
				}
				payload := escapeDatagram
				if e.handedUDP < 0 {
					payload = controlDatagram
				}
				return unix.Sendto(e.targetUDP(), []byte(payload), unix.MSG_DONTWAIT, sa)
			}},
		{name: "connect(AF_UNSPEC) on the handed UDP socket", want: eperm, works: true,
			call: func(e *childEnv) error {
				_, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(e.targetUDP()),
					uintptr(unsafe.Pointer(&unspec[0])), uintptr(len(unspec)))
				return errnoOf(errno)
			}},
		{name: "connect the handed UDP socket to the untouched datagram listener", want: eperm,
			works: true, call: func(e *childEnv) error {
				sa, err := inet4(os.Getenv(seccompUntouchedUDPEnv))
				if err != nil {
					return err
				}
				return unix.Connect(e.targetUDP(), sa)
			}},
		{name: "write a datagram on the handed UDP socket", call: func(e *childEnv) error {
			if e.udpConn == nil {
				return errors.New("no UDP connection")
			}
			_, err := e.udpConn.Write([]byte(handedDatagram))
			return err
		}},
		// The listener answers once it read the connection to its end:
		// the answer arrives only if shutdown ended the child's side,
		// which the child still holds open.
		{name: "shutdown(SHUT_WR) of the handed socket, and the listener's answer",
			call: func(e *childEnv) error {
				if e.conn == nil {
					return errors.New("no connection")
				}
				if err := unix.Shutdown(e.handed, unix.SHUT_WR); err != nil {
					return err
				}
				e.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
				got, err := io.ReadAll(e.conn)
				if err != nil || string(got) != byeLine {
					return fmt.Errorf("read %q, %v after the shutdown; want %q", got, err, byeLine)
				}
				return nil
			}},
	}
}
