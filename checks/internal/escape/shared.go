package escape

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// sharedPort is what $SHARED names: a UDP port on 127.0.0.1 that a
// receiver of the harness holds, with SO_REUSEADDR and SO_REUSEPORT set
// where the system has them (so that another socket that sets either may
// share the port), and to which the harness sends a datagram every
// sharedEvery, each from one of sharedSenders sockets in turn: another
// process's traffic, meant for the receiver. A run that binds the port
// beside the receiver takes some of it, and the receiver misses them.
type sharedPort struct {
	recv     net.PacketConn
	senders  []net.Conn
	mu       sync.Mutex // held while a datagram is sent, and while the count is read
	sent     int        // datagrams sent, markers aside
	received atomic.Int64
	markers  chan string // the markers the receiver read
	stop     chan struct{}
	stopOnce sync.Once
}

const (
	// sharedEvery is how often the harness sends to $SHARED.
	sharedEvery = 5 * time.Millisecond
	// sharedSenders is how many sockets, each its own source port, the
	// datagrams are sent from in turn: SO_REUSEPORT spreads datagrams
	// over the sockets that share a port by their source, so one source
	// might always reach the receiver.
	sharedSenders = 16
	// sharedSettle bounds the wait for the receiver to read a marker the
	// harness sent it: a datagram on the loopback interface is queued
	// at once, and only the reading goroutine can be late.
	sharedSettle = 10 * time.Second
	// sharedResend is how long the harness waits for a marker before it
	// sends it again, from the next sender: a datagram is dropped when
	// the receiver's buffer is full (its goroutine starved on a loaded
	// machine), and one source port may lead to a socket a stray of the
	// run still holds.
	sharedResend = 250 * time.Millisecond
	// sharedBuffer is the receiver's socket buffer: some seconds of
	// datagrams, so that a reader late by that much drops none.
	sharedBuffer = 4 << 20
)

// markerPrefix begins a marker: a datagram the harness sends to learn
// that the receiver has read everything sent before it.
var markerPrefix = []byte("marker ")

// startShared binds the receiver, dials the senders and starts sending.
func startShared() (*sharedPort, error) {
	recv, err := listenShared()
	if err != nil {
		return nil, err
	}
	if u, ok := recv.(*net.UDPConn); ok {
		_ = u.SetReadBuffer(sharedBuffer) // the system's bound, where it is lower
	}
	sp := &sharedPort{recv: recv, markers: make(chan string, 16), stop: make(chan struct{})}
	for range sharedSenders {
		c, err := net.Dial("udp4", recv.LocalAddr().String())
		if err != nil {
			sp.close()
			return nil, err
		}
		sp.senders = append(sp.senders, c)
	}
	go sp.receive()
	go sp.send()
	return sp, nil
}

// sharedChoosing is held while a receiver chooses its port and binds it.
var sharedChoosing sync.Mutex

// sharedBinds bounds the receiver's attempts to bind the port chosen
// for it, each of which another process may take first.
const sharedBinds = 8

// listenShared binds a receiver, shareable, to a port of 127.0.0.1 no
// other socket holds. A socket with SO_REUSEADDR or SO_REUSEPORT set,
// bound to port 0, may be given a port that other such sockets of the
// user hold (Linux counts it free to share): two receivers made at once,
// by runs side by side, would share one port, each taking some of the
// other's datagrams, a change of the witness no run made. The port is
// chosen by a socket with neither set, which is given a port no socket
// holds, and the receiver bound to it once that socket is closed; no
// other receiver of the harness chooses a port in between (sharedChoosing).
func listenShared() (net.PacketConn, error) {
	sharedChoosing.Lock()
	defer sharedChoosing.Unlock()
	lc := net.ListenConfig{Control: shareable}
	var err error
	for range sharedBinds {
		var probe net.PacketConn
		probe, err = net.ListenPacket("udp4", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("witness: $SHARED: choose a port: %w", err)
		}
		addr := probe.LocalAddr().String()
		_ = probe.Close()
		var recv net.PacketConn
		if recv, err = lc.ListenPacket(context.Background(), "udp4", addr); err == nil {
			return recv, nil
		}
	}
	return nil, fmt.Errorf("witness: $SHARED: bind the port chosen: %w", err)
}

// port is the shared port's number.
func (sp *sharedPort) port() string {
	return strconv.Itoa(sp.recv.LocalAddr().(*net.UDPAddr).Port)
}

// receive counts the datagrams the receiver reads, and passes on the
// markers. It never waits on anything but the socket, so that the
// socket's buffer never fills and drops a datagram.
func (sp *sharedPort) receive() {
	buf := make([]byte, 512)
	for {
		n, _, err := sp.recv.ReadFrom(buf)
		if err != nil {
			return // closed
		}
		if !bytes.HasPrefix(buf[:n], markerPrefix) {
			sp.received.Add(1)
			continue
		}
		select {
		case sp.markers <- string(buf[:n]):
		default: // a marker no one waits for any more
		}
	}
}

// send sends a numbered datagram every sharedEvery until stopped.
func (sp *sharedPort) send() {
	tick := time.NewTicker(sharedEvery)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-sp.stop:
			return
		case <-tick.C:
		}
		sp.mu.Lock()
		if _, err := fmt.Fprintf(sp.senders[i%len(sp.senders)], "datagram %d", sp.sent); err == nil {
			sp.sent++
		}
		sp.mu.Unlock()
	}
}

// missed is how many of the datagrams sent so far the receiver did not
// get. It holds the sending, sends a marker and reads what the receiver
// got up to it: everything sent before the marker has reached the
// receiver by then, or another socket. A marker not read within
// sharedResend is sent again from the next sender; markers are not
// counted, so a second copy read changes nothing.
func (sp *sharedPort) missed() (int, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	marker := string(markerPrefix) + strconv.FormatInt(time.Now().UnixNano(), 10)
	deadline := time.After(testkit.Bound(sharedSettle))
	var sendErr error // a sender refused (its datagram was answered unreachable)
	for i := 0; ; i++ {
		if _, err := sp.senders[i%len(sp.senders)].Write([]byte(marker)); err != nil {
			sendErr = err
		}
		read, err := sp.awaitMarker(marker, deadline)
		if err != nil && sendErr != nil {
			err = fmt.Errorf("%w (a send of it: %v)", err, sendErr)
		}
		if read || err != nil {
			return sp.sent - int(sp.received.Load()), err
		}
	}
}

// awaitMarker waits for the receiver to read marker: true once it has,
// false after sharedResend, an error past deadline.
func (sp *sharedPort) awaitMarker(marker string, deadline <-chan time.Time) (bool, error) {
	again := time.NewTimer(sharedResend)
	defer again.Stop()
	for {
		select {
		case m := <-sp.markers:
			if m == marker {
				return true, nil
			}
		case <-again.C:
			return false, nil
		case <-deadline:
			return false, fmt.Errorf("witness: $SHARED: the receiver did not read the marker "+
				"within %s", testkit.Bound(sharedSettle))
		}
	}
}

// close stops the sending and closes the sockets.
func (sp *sharedPort) close() {
	sp.stopOnce.Do(func() { close(sp.stop) })
	for _, c := range sp.senders {
		_ = c.Close()
	}
	_ = sp.recv.Close()
}
