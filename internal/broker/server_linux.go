package broker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/reach"
	"github.com/sabline/sabline/receipt"
)

// LookupFunc looks a name up to its addresses, as the supervisor does
// for every connection it makes.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// systemLookup is the supervisor's own resolver: the system's name
// service, never one a program chose.
func systemLookup(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// Broker is the supervisor's side of one worker's broker channel: it
// answers the worker's requests for as long as the channel is open,
// under the grants of the run Begin started, and refuses every request
// between two runs.
type Broker struct {
	conn   *net.UnixConn
	lookup LookupFunc

	cmu    sync.Mutex // cancel, which End calls before it waits for mu
	cancel context.CancelFunc

	mu  sync.Mutex // one request at a time, and run
	run *runState  // nil between runs
}

// runState is what the broker holds for one run.
type runState struct {
	ctx      context.Context
	adm      *admission
	held     []held
	list     []receipt.Connection
	listed   map[string]bool // the destinations of list (receipt.Connection.Destination)
	unlisted int
	requests int
	made     int
}

// held is a socket the supervisor handed over and keeps its own hold on.
type held struct {
	c   net.Conn
	row int // its row in the run's list; -1 when it was not listed
}

// Pair makes a broker channel: the worker's end, to pass it as a
// descriptor, and the Broker that serves the supervisor's, which lookup
// (nil for the system's resolver) resolves names for. Close the
// worker's end once the worker holds it.
func Pair(lookup LookupFunc) (theirs *os.File, b *Broker, err error) {
	theirs, b, err = unserved(lookup)
	if err != nil {
		return nil, nil, err
	}
	go b.serve()
	return theirs, b, nil
}

// unserved is Pair with no request read yet: the caller starts b.serve.
func unserved(lookup LookupFunc) (theirs *os.File, b *Broker, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("broker channel: socketpair: %w", err)
	}
	theirs = os.NewFile(uintptr(fds[0]), "broker")
	ours := os.NewFile(uintptr(fds[1]), "broker-supervisor")
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, nil, fmt.Errorf("broker channel: %w", err)
	}
	if lookup == nil {
		lookup = systemLookup
	}
	return theirs, &Broker{conn: c.(*net.UnixConn), lookup: lookup}, nil
}

// Begin starts a run under g: the requests that come until End are
// checked against it. A run Begin started before and End did not end
// ends first, its sockets shut down.
func (b *Broker) Begin(g Grants) {
	if b == nil {
		return
	}
	b.End()
	ctx, cancel := context.WithCancel(context.Background())
	b.cmu.Lock()
	b.cancel = cancel
	b.cmu.Unlock()
	b.mu.Lock()
	b.run = &runState{ctx: ctx, adm: newAdmission(g)}
	b.mu.Unlock()
}

// End ends the run Begin started: a connection still being made is
// abandoned, a request the worker sent that is still unread is refused
// (E335) as the run's, not left to be answered under the next run's
// grants, and every socket handed over is shut down, so that nothing
// the worker kept of it reaches its peer any more, and read (what the
// kernel counted on it). It returns the run's connections, those made
// and those refused, and the count of those past the list's bound.
func (b *Broker) End() ([]receipt.Connection, int) {
	if b == nil {
		return nil, 0
	}
	b.cmu.Lock()
	if b.cancel != nil {
		b.cancel()
		b.cancel = nil
	}
	b.cmu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.run
	b.run = nil
	if r == nil {
		return nil, 0
	}
	b.drain(r)
	for _, h := range r.held {
		r.release(h)
	}
	return r.list, r.unlisted
}

// release lets h go: shut down, so that nothing the worker writes on it
// any more reaches the peer, then its count read (what the kernel
// counted on it, final once nothing more can be written) and recorded,
// and closed.
func (r *runState) release(h held) {
	control(h.c, func(fd int) { _ = unix.Shutdown(fd, unix.SHUT_RDWR) })
	sent, received, ok := counted(h.c)
	if ok && h.row >= 0 {
		r.list[h.row].SentBytes, r.list[h.row].ReceivedBytes = &sent, &received
	}
	h.c.Close()
}

// prune releases the sockets the worker has closed: shut down both ways
// (the worker's close shuts its connection down, as the supervisor's
// hold would keep it open otherwise), which poll reports as a hang-up.
func (r *runState) prune() {
	kept := r.held[:0]
	for _, h := range r.held {
		hungUp := false
		control(h.c, func(fd int) {
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(p, 0)
			hungUp = err == nil && n == 1 && p[0].Revents&unix.POLLHUP != 0
		})
		if hungUp {
			r.release(h)
		} else {
			kept = append(kept, h)
		}
	}
	r.held = kept
}

// Close ends the channel; the worker's next request fails.
func (b *Broker) Close() error {
	if b == nil {
		return nil
	}
	b.End()
	return b.conn.Close()
}

// serve answers requests until the channel closes. Each request is
// taken from the channel with b.mu held, and answered under the run
// that is under way then: a request the worker sent before a run
// ended is that run's (End refuses those it finds unread), never the
// next run's.
func (b *Broker) serve() {
	rc, err := b.conn.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, MaxMessageBytes+1)
	oob := make([]byte, unix.CmsgSpace(16*4))
	for {
		var rep Reply
		var c net.Conn
		closed := false
		err := rc.Read(func(fd uintptr) bool {
			b.mu.Lock()
			defer b.mu.Unlock()
			msg, ok, end := take(int(fd), buf, oob)
			switch {
			case !ok:
				return false // nothing to read yet: wait for the next request
			case end:
				closed = true
			default:
				rep, c = b.answer(msg)
			}
			return true
		})
		if err != nil || closed || !b.send(rep, c) {
			return // closed, by either side
		}
	}
}

// take reads the next request from the channel fd without waiting: ok
// is false when none is there, and end is true when the worker closed
// its end. Any descriptor the request came with is closed: a worker
// sends none. An empty request is a request (ParseRequest refuses it),
// not the channel's end, which a read of nothing from a worker that
// hung up is.
func take(fd int, buf, oob []byte) (msg []byte, ok, end bool) {
	for {
		n, oobn, flags, _, err := unix.Recvmsg(fd, buf, oob,
			unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return nil, false, false
		case err != nil:
			return nil, true, true
		}
		closeRights(oob[:oobn])
		if n == 0 && oobn == 0 && hungUp(fd) {
			return nil, true, true
		}
		if flags&unix.MSG_TRUNC != 0 {
			return buf[:MaxMessageBytes+1], true, false // too long: ParseRequest refuses it
		}
		return buf[:n], true, false
	}
}

// hungUp reports whether the peer of the socket fd closed its end.
func hungUp(fd int) bool {
	p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
	n, err := unix.Poll(p, 0)
	return err == nil && n == 1 && p[0].Revents&(unix.POLLHUP|unix.POLLRDHUP) != 0
}

// drain refuses, as r's, every request the worker sent while r was
// under way that is still unread as r ends (E335), so that none is
// answered under the grants of the run Begin starts next. b.mu is held.
// Each refusal is answered if the channel takes it at once, and listed
// as answer lists one; past MaxRequests, a request is read and nothing
// more. At most MaxRequests are read: more than the channel holds.
func (b *Broker) drain(r *runState) {
	buf := make([]byte, MaxMessageBytes+1)
	oob := make([]byte, unix.CmsgSpace(16*4))
	control(b.conn, func(fd int) {
		for range MaxRequests {
			msg, ok, end := take(fd, buf, oob)
			if !ok || end {
				return
			}
			if r.requests++; r.requests > MaxRequests {
				continue
			}
			req, _ := ParseRequest(msg)
			row := receipt.Connection{Network: req.Network, Host: req.Host, Port: req.Port}
			rep := r.refuse(req.ID, row, codes.Errorf(codes.E335, "the run ended before "+
				"the supervisor read the request"))
			_ = unix.Sendmsg(fd, rep.encode(), nil, nil, unix.MSG_DONTWAIT)
		}
	})
}

// send writes rep, with c's socket attached when there is one. It
// reports whether the channel is still open.
func (b *Broker) send(rep Reply, c net.Conn) bool {
	var err error
	if c == nil {
		_, _, err = b.conn.WriteMsgUnix(rep.encode(), nil, nil)
	} else {
		control(c, func(fd int) {
			_, _, err = b.conn.WriteMsgUnix(rep.encode(), unix.UnixRights(fd), nil)
		})
	}
	return err == nil
}

// answer is the reply to one request, and the socket it hands over.
// b.mu is held.
func (b *Broker) answer(msg []byte) (Reply, net.Conn) {
	r := b.run
	req, err := ParseRequest(msg)
	if r == nil {
		return Reply{ID: req.ID, Code: codes.E335,
			Message: "no run is under way: the supervisor makes connections for a run only"}, nil
	}
	r.requests++
	if r.requests > MaxRequests {
		return Reply{ID: req.ID, Code: codes.E335, Message: fmt.Sprintf(
			"the run asked for more than %d connections", MaxRequests)}, nil
	}
	if err != nil {
		err = codes.Errorf(codes.E335, "the worker's request was refused: %v", err)
		return r.refuse(req.ID, receipt.Connection{}, err), nil
	}
	row := receipt.Connection{Network: req.Network, Host: req.Host, Port: req.Port}
	grant, named, err := r.adm.admit(req)
	row.Grant = grant
	if err != nil {
		return r.refuse(req.ID, row, err), nil
	}
	if len(r.held) >= MaxOpen {
		r.prune()
	}
	if r.made >= MaxConnections || len(r.held) >= MaxOpen {
		return r.refuse(req.ID, row, codes.Errorf(codes.E335, "the run holds %d connections and "+
			"has made %d: a run makes at most %d, %d at once", len(r.held), r.made, MaxConnections,
			MaxOpen)), nil
	}
	c, err := b.connect(r.ctx, req, named)
	if err != nil {
		return r.refuse(req.ID, row, err), nil
	}
	r.made++
	row.Address = c.RemoteAddr().String()
	h := held{c: c, row: r.add(row)}
	r.held = append(r.held, h)
	return Reply{ID: req.ID, Address: row.Address}, c
}

// refuse lists row as refused with err and returns the reply that says so.
func (r *runState) refuse(id uint64, row receipt.Connection, err error) Reply {
	row.Code, row.Refused = codes.E315, err.Error()
	var e *codes.Error
	if errors.As(err, &e) {
		row.Code, row.Refused = e.Code, e.Msg
	}
	r.add(row)
	return Reply{ID: id, Code: row.Code, Message: row.Refused}
}

// add lists row and returns its index, or counts it as unlisted and
// returns -1: past receipt.MaxConnectionsListed, and past half of it
// when its destination is listed already, so that a run's many
// connections to one place (a decoy) cannot push another place off the
// receipt.
func (r *runState) add(row receipt.Connection) int {
	dest := row.Destination()
	if len(r.list) >= receipt.MaxConnectionsListed ||
		len(r.list) >= receipt.MaxConnectionsListed/2 && r.listed[dest] {
		r.unlisted++
		return -1
	}
	if r.listed == nil {
		r.listed = map[string]bool{}
	}
	r.listed[dest] = true
	r.list = append(r.list, row)
	return len(r.list) - 1
}

// connect looks req's host up (an address is taken as it is) and
// connects to the first of its addresses that answers, among those the
// grant reaches (reach.Check when it named the host, any otherwise), all
// within HandshakeTimeout.
func (b *Broker) connect(ctx context.Context, req Request, named bool) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, HandshakeTimeout)
	defer cancel()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(reach.TrimBrackets(req.Host)); err == nil {
		addrs = []netip.Addr{a}
	} else {
		found, err := b.lookup(ctx, req.Host)
		if err != nil {
			return nil, codes.Errorf(codes.E315, "look up %s: %v", req.Host, err)
		}
		addrs = found
	}
	var d net.Dialer
	if named {
		var err error
		if addrs, err = reach.Check(req.Network, req.Host, req.Port, addrs); err != nil {
			return nil, err
		}
		d.Control = reach.Control(req.Host) // routed here from the port it takes
	}
	var last error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, req.Network,
			netip.AddrPortFrom(a.Unmap(), uint16(req.Port)).String())
		if err == nil {
			return c, nil
		}
		last = err
	}
	if codes.CodeOf(last) == codes.E335 {
		return nil, last
	}
	if last == nil {
		return nil, codes.Errorf(codes.E315, "%s has no address", req.Host)
	}
	return nil, codes.Errorf(codes.E315, "connect to %s: %v", net.JoinHostPort(req.Host,
		strconv.Itoa(req.Port)), last)
}

// counted reads what the kernel counted on a TCP connection, once it is
// shut down: the data bytes written to it, those it sent (retransmissions
// aside) and those it holds still to send, which it sends after the run,
// as the peer takes them; and the bytes that arrived in order. The
// kernel counts each side's FIN as a byte of the stream: the connection's
// own, queued by the shutdown, is taken off what is still to send while
// it is (it comes last, after every byte of data), and the peer's off
// what arrived where the state says one came (a connection the peer
// closed, or that closed after the peer did; one reset by the peer counts
// one byte fewer than arrived). A connection reset holds nothing more to
// send. ok is false for UDP, which keeps no count.
func counted(c net.Conn) (sent, received int64, ok bool) {
	if _, tcp := c.(*net.TCPConn); !tcp {
		return 0, 0, false
	}
	control(c, func(fd int) {
		info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return
		}
		unsent := int64(info.Notsent_bytes)
		if info.State == tcpClose {
			unsent = 0
		}
		sent = int64(info.Bytes_sent-info.Bytes_retrans) + max(unsent-1, 0)
		received, ok = int64(info.Bytes_received), true
		switch info.State {
		case tcpCloseWait, tcpLastAck, tcpClosing, tcpTimeWait, tcpClose:
			received = max(received-1, 0)
		}
	})
	return sent, received, ok
}

// The TCP states, as tcp_info's state gives them, after the peer's FIN.
const (
	tcpTimeWait  = 6
	tcpClose     = 7
	tcpCloseWait = 8
	tcpLastAck   = 9
	tcpClosing   = 11
)

// control runs f on c's descriptor.
func control(c net.Conn, f func(fd int)) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { f(int(fd)) })
}

// closeRights closes every descriptor the control messages in oob carry.
func closeRights(oob []byte) {
	for _, fd := range rights(oob) {
		unix.Close(fd)
	}
}

// rights are the descriptors the control messages in oob carry.
func rights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}
