package testkit

import (
	"net"
	"strconv"
	"testing"
)

// GatedSource is a program that connects to the loopback port its first
// argument names, prints the three bytes it is sent, and ends: a run that
// waits, mid-way, for the test (Gate). It needs the grant io,net:127.0.0.1:PORT.
const GatedSource = `c = net.connect("127.0.0.1", int(ARGS[0]))
print(c.recv(3))
c.close()
`

// Gate is a loopback listener a run of GatedSource connects to: once it
// has, during runs (the run is under way, its receipt's skeleton kept),
// then the run is sent "go\n" and goes on. port is the listener's, for
// the run's grant and argument; wait returns once the run was answered,
// with the error of the accept or the write.
func Gate(t *testing.T, during func()) (port string, wait func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	answered := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			during()
			_, err = c.Write([]byte("go\n"))
		}
		answered <- err
	}()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), func() error { return <-answered }
}
