// Package backlog is a listening socket a test holds and counts the
// connections of without accepting them for anyone: a connection a child
// made is in its backlog once the child's connect returned, so the
// count, read from outside the child, says whether the connect went
// through whatever the child's errno said.
package backlog

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// Listen is a non-blocking stream socket of family bound to sa and
// listening with a backlog of n, closed when t ends.
func Listen(t testing.TB, family int, sa unix.Sockaddr, n int) int {
	t.Helper()
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, sa); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, n); err != nil {
		t.Fatal(err)
	}
	return fd
}

// Count accepts and closes every connection waiting on fd, a socket of
// Listen, and says how many there were.
func Count(t testing.TB, fd int) int {
	t.Helper()
	n := 0
	for {
		c, _, err := unix.Accept4(fd, unix.SOCK_CLOEXEC)
		if errors.Is(err, unix.EAGAIN) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(c)
		n++
	}
}

// Connect connects a TCP socket of the calling process's own (no
// broker, no Go poller: the raw calls a confined worker would make) to
// 127.0.0.1:port, and closes it.
func Connect(port int) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Connect(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
}
