package escape

import (
	"net"
	"sync/atomic"
)

// taker returns what counts the connections or datagrams the listener l
// (a net.Listener or a net.PacketConn) took. A Windows socket's queue
// cannot be read without waiting, so a goroutine takes what arrives, and
// the taker returns what it counted since it was last asked: a
// connection the run made may be counted a moment after the run ended.
func taker(l any) (func() int, error) {
	next := func() error { return net.ErrClosed }
	switch l := l.(type) {
	case net.Listener:
		next = func() error {
			c, err := l.Accept()
			if err == nil {
				c.Close()
			}
			return err
		}
	case net.PacketConn:
		buf := make([]byte, 512)
		next = func() error { _, _, err := l.ReadFrom(buf); return err }
	}
	var n atomic.Int64
	go func() {
		for next() == nil {
			n.Add(1)
		}
	}()
	return func() int { return int(n.Swap(0)) }, nil
}
