package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
)

// replyGrace is how long past HandshakeTimeout a client waits for a
// reply: the supervisor answers every request within HandshakeTimeout.
const replyGrace = 5 * time.Second

// Client is the worker's side of its broker channel: Dial asks the
// supervisor for each connection the run makes.
type Client struct {
	mu   sync.Mutex // one request at a time
	conn *net.UnixConn
	next uint64
	open map[*handed]bool
}

// NewClient takes f, the worker's end of the broker channel, as the
// supervisor passed it.
func NewClient(f *os.File) (*Client, error) {
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("broker channel: %w", err)
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("broker channel: descriptor %s is not a Unix socket", f.Name())
	}
	return &Client{conn: uc, open: map[*handed]bool{}}, nil
}

// Dial asks the supervisor for a connection to address, a host and
// port, over network, tcp or udp (tcp4, tcp6, udp4 and udp6 are the
// same: the supervisor picks the address). Its refusal is the
// codes.Error it sent: E302 or E303 for a grant missing or used up,
// E335 for an address or a count past what the run may reach, E315 for
// what the network answered.
func (c *Client) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	req := Request{Network: strings.TrimRight(network, "46")}
	host, port, err := net.SplitHostPort(address)
	if err == nil {
		req.Host = host
		req.Port, err = strconv.Atoi(port)
	}
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", address, err)
	}
	if ctx.Err() != nil { // asked for nothing: the supervisor makes no connection for it
		return nil, fmt.Errorf("ask the supervisor for %s: %w", address, context.Cause(ctx))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	req.ID = c.next
	msg, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := c.conn.Write(msg); err != nil {
		return nil, fmt.Errorf("ask the supervisor for %s: %w", address, err)
	}
	deadline := time.Now().Add(HandshakeTimeout + replyGrace)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.conn.SetReadDeadline(deadline)
	defer c.endWithin(ctx)()
	buf := make([]byte, MaxMessageBytes+1)
	oob := make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, flags, _, err := c.conn.ReadMsgUnix(buf, oob)
		if err != nil && errors.Is(ctx.Err(), context.Canceled) { // its deadline is the read's
			return nil, fmt.Errorf("the supervisor's answer for %s: %w", address, context.Cause(ctx))
		}
		if err != nil {
			return nil, fmt.Errorf("the supervisor's answer for %s: %w", address, err)
		}
		fds := rights(oob[:oobn])
		rep, err := ParseReply(buf[:n])
		if err == nil && flags&unix.MSG_CTRUNC != 0 && len(fds) == 0 && rep.ID == req.ID &&
			rep.Code == "" && c.full() {
			// The kernel could not put the socket in the worker's table
			// of descriptors, which the run filled: its own doing, as
			// the same run's own dial would have met (E315), not a reply
			// of the supervisor's cut short (E310, "report it").
			return nil, codes.Errorf(codes.E315, "the supervisor connected to %s, but the run "+
				"holds as many descriptors as it may, and could take no more: %v", address,
				unix.EMFILE)
		}
		if err == nil && flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
			err = fmt.Errorf("a reply cut short")
		}
		if err != nil || rep.ID != req.ID || rep.Code != "" || len(fds) != 1 {
			for _, fd := range fds {
				unix.Close(fd)
			}
		}
		switch {
		case err != nil:
			return nil, codes.Errorf(codes.E310, "the supervisor's answer for %s: %v", address, err)
		case rep.ID != req.ID:
			continue // the late answer to a request given up on
		case rep.Code != "":
			return nil, rep.Err()
		case len(fds) != 1:
			return nil, codes.Errorf(codes.E310, "the supervisor's answer for %s came with %d "+
				"descriptors, not one", address, len(fds))
		}
		return c.take(fds[0], address)
	}
}

// endWithin ends the wait for a reply once ctx is done, not at the
// wait's deadline alone: a run stopped while the supervisor makes its
// connection (a peer that drops the SYN) ends at that call, as its own
// dial's would, where it waited up to HandshakeTimeout, was killed
// after the stop's grace, and its position was lost. The reply that
// comes later is dropped by the next request (a late answer). It
// returns what the caller calls once its wait is over, before the next
// request sets its own deadline: the deadline ctx put in the past is
// then put there before, never after.
func (c *Client) endWithin(ctx context.Context) (stop func()) {
	ended := make(chan struct{})
	stopEnding := context.AfterFunc(ctx, func() {
		defer close(ended)
		_ = c.conn.SetReadDeadline(time.Unix(1, 0))
	})
	return func() {
		if !stopEnding() {
			<-ended
		}
	}
}

// full reports whether the worker holds as many descriptors as it may
// (RLIMIT_NOFILE): a duplicate of the channel's own fails with EMFILE.
func (c *Client) full() bool {
	var err error
	control(c.conn, func(fd int) {
		var dup int
		if dup, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); err == nil {
			unix.Close(dup)
		}
	})
	return err == unix.EMFILE
}

// take makes the descriptor fd the supervisor handed over a connection
// the client tracks.
func (c *Client) take(fd int, address string) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), "connection "+address)
	nc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("the connection to %s: %w", address, err)
	}
	h := &handed{Conn: nc, c: c}
	c.open[h] = true
	return h, nil
}

// CloseAll closes every connection handed over that the run has not
// closed: a pooled worker calls it at the end of each run.
func (c *Client) CloseAll() {
	c.mu.Lock()
	open := c.open
	c.open = map[*handed]bool{}
	c.mu.Unlock()
	for h := range open {
		h.close()
	}
}

// handed is a connection the supervisor made: closing it shuts the
// socket down, since the supervisor holds it too until the run ends,
// and a close alone would leave it open to its peer.
type handed struct {
	net.Conn
	c    *Client
	once sync.Once
	err  error
}

func (h *handed) Close() error {
	h.c.mu.Lock()
	delete(h.c.open, h)
	h.c.mu.Unlock()
	return h.close()
}

func (h *handed) close() error {
	h.once.Do(func() {
		control(h.Conn, func(fd int) { _ = unix.Shutdown(fd, unix.SHUT_RDWR) })
		h.err = h.Conn.Close()
	})
	return h.err
}
