//go:build unix

package escape

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// taker returns what counts, and takes, the connections or datagrams the
// kernel holds for the listener l (a net.Listener or a net.PacketConn),
// without waiting: it reads the socket's queue until it is empty. Go made
// the socket non-blocking.
func taker(l any) (func() int, error) {
	drain := takeConnections
	if _, packets := l.(net.PacketConn); packets {
		drain = takeDatagrams
	}
	sc, ok := l.(syscall.Conn)
	if !ok {
		return nil, errors.New("a listener without a descriptor")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	return func() int {
		n := 0
		_ = rc.Control(func(fd uintptr) { n = drain(int(fd)) })
		return n
	}, nil
}

// takeConnections accepts and closes every connection queued on the
// listening socket fd, and counts them.
func takeConnections(fd int) int {
	n := 0
	for {
		c, _, err := unix.Accept(fd)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n // EAGAIN: none left
		}
		_ = unix.Close(c)
		n++
	}
}

// takeDatagrams reads and counts every datagram queued on fd.
func takeDatagrams(fd int) int {
	n := 0
	buf := make([]byte, 512)
	for {
		_, _, err := unix.Recvfrom(fd, buf, unix.MSG_DONTWAIT)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n
		}
		n++
	}
}
