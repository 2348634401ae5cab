package broker

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// supervisorEnd is a client whose supervisor is the test: the client a
// worker would hold, and the other end of its channel, which reads the
// client's requests and writes the replies the test makes.
func supervisorEnd(t *testing.T) (*Client, *net.UnixConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(os.NewFile(uintptr(fds[0]), "broker"))
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fds[1]), "broker-supervisor")
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fc.Close() })
	return c, fc.(*net.UnixConn)
}

// request reads the client's next request.
func request(t *testing.T, sup *net.UnixConn) Request {
	t.Helper()
	buf := make([]byte, MaxMessageBytes+1)
	_ = sup.SetReadDeadline(time.Now().Add(bounded))
	n, err := sup.Read(buf)
	if err != nil {
		t.Fatalf("the client's request: %v", err)
	}
	req, err := ParseRequest(buf[:n])
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// answer writes a reply to request id with the sockets of conns
// attached.
func answer(t *testing.T, sup *net.UnixConn, id uint64, conns ...net.Conn) {
	t.Helper()
	var fds []int
	for _, c := range conns {
		f, err := c.(*net.TCPConn).File()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fds = append(fds, int(f.Fd()))
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	msg := Reply{ID: id, Address: "127.0.0.1:1"}.encode()
	if _, _, err := sup.WriteMsgUnix(msg, oob, nil); err != nil {
		t.Fatal(err)
	}
}

// dialed is a connection to l, made by the test as a supervisor makes
// one, and the peer l accepted for it. The test's copy is closed once it
// is handed over: the client's is then the only one left.
func dialed(t *testing.T, l net.Listener) (ours, peer net.Conn) {
	t.Helper()
	ours, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ours.Close() })
	if peer, err = l.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.Close() })
	return ours, peer
}

// TestClientDropsALateAnswer: the answer to a request the client gave up
// on, which comes while it waits for the next, is not taken for it: its
// socket is closed (its peer sees the end of the stream), and the next
// request's own answer is the connection Dial returns.
func TestClientDropsALateAnswer(t *testing.T) {
	c, sup := supervisorEnd(t)
	l, _ := listener(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	gaveUp := make(chan error, 1)
	go func() {
		_, err := c.Dial(ctx, "tcp", "localhost:80")
		gaveUp <- err
	}()
	late := request(t, sup)
	if err := within(t, sup, gaveUp); err == nil {
		t.Fatal("a request no one answered before its context's deadline was answered")
	}
	next := make(chan error, 1)
	var got net.Conn
	go func() {
		var err error
		got, err = c.Dial(context.Background(), "tcp", "localhost:80")
		next <- err
	}()
	req := request(t, sup)
	lateOurs, latePeer := dialed(t, l)
	answer(t, sup, late.ID, lateOurs)
	lateOurs.Close()
	ours, peer := dialed(t, l)
	answer(t, sup, req.ID, ours)
	ours.Close()
	if err := <-next; err != nil {
		t.Fatalf("the request answered after a late answer: %v", err)
	}
	defer got.Close()
	readEnd(t, latePeer, "once the late answer came,")
	if _, err := got.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	_ = peer.SetReadDeadline(time.Now().Add(bounded))
	if _, err := peer.Read(buf); err != nil || buf[0] != 'x' {
		t.Errorf("the connection Dial returned is not its own answer's: the peer read %q, %v",
			buf, err)
	}
}

// TestClientRefusesAnAnswerWithTwo: an answer that came with two
// descriptors is refused E310, and both are closed (their peers see the
// end of the stream), none left open in the worker; the control, an
// answer with its one descriptor, is a connection.
func TestClientRefusesAnAnswerWithTwo(t *testing.T) {
	c, sup := supervisorEnd(t)
	l, _ := listener(t)
	for _, two := range []bool{true, false} {
		done := make(chan error, 1)
		var got net.Conn
		go func() {
			var err error
			got, err = c.Dial(context.Background(), "tcp", "localhost:80")
			done <- err
		}()
		req := request(t, sup)
		ours, peer := dialed(t, l)
		if two {
			other, otherPeer := dialed(t, l)
			answer(t, sup, req.ID, ours, other)
			other.Close()
			ours.Close()
			if err := <-done; codes.CodeOf(err) != codes.E310 {
				t.Errorf("an answer with two descriptors: %v, want E310", err)
			}
			readEnd(t, peer, "once the cut answer was refused,")
			readEnd(t, otherPeer, "(the descriptor that did not fit)")
			continue
		}
		answer(t, sup, req.ID, ours)
		ours.Close()
		if err := <-done; err != nil {
			t.Fatalf("the control, an answer with its one descriptor: %v", err)
		}
		got.Close()
		readEnd(t, peer, "once the connection was closed,")
	}
}

// TestClientWaitsNoLongerThanItsContext: a supervisor that does not
// answer keeps Dial no longer than its context's deadline; the control,
// an answer that comes, is a connection.
func TestClientWaitsNoLongerThanItsContext(t *testing.T) {
	c, sup := supervisorEnd(t)
	l, _ := listener(t)
	for _, answered := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		done := dialing(ctx, c)
		req := request(t, sup)
		if answered {
			ours, _ := dialed(t, l)
			answer(t, sup, req.ID, ours)
			ours.Close()
		}
		err := within(t, sup, done)
		if answered && err != nil {
			t.Errorf("the control, answered: %v", err)
		}
		if !answered && !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("unanswered: %v, want its deadline passed", err)
		}
		cancel()
	}
}

// dialing starts c.Dial of localhost:80 under ctx, and sends what it
// returned on the channel it gives, closing a connection it was given.
func dialing(ctx context.Context, c *Client) <-chan error {
	done := make(chan error, 1)
	go func() {
		conn, err := c.Dial(ctx, "tcp", "localhost:80")
		if err == nil {
			conn.Close()
		}
		done <- err
	}()
	return done
}

// within is what a Dial sent on done, which must come within a bound
// far past the Dial's own deadline; past it, the test ends the Dial by
// the channel's end, and fails.
func within(t *testing.T, sup *net.UnixConn, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(testkit.Bound(10 * time.Second)):
		sup.Close()
		<-done
		t.Fatal("Dial waited past its context's deadline")
		return nil
	}
}

// TestClientEndsWhenItsContextIs: a Dial whose context is cancelled while
// the supervisor makes its connection (a stop of the run, a peer that
// drops the SYN) returns at once, with the context's error, where it
// waited for its deadline (HandshakeTimeout and replyGrace: 15 s), and a
// stopped worker was killed with where its program was unknown; the
// next Dial, given a live context, takes its own answer. A context done
// before Dial asks for nothing. The control of each: the same Dial with
// its context live is answered with a connection, and asks.
func TestClientEndsWhenItsContextIs(t *testing.T) {
	c, sup := supervisorEnd(t)
	l, _ := listener(t)
	// Its own deadline, HandshakeTimeout and replyGrace from the request,
	// is what a Dial deaf to its context ends at: one that returns a
	// second before it was ended by something else.
	waitedOut := HandshakeTimeout + replyGrace - time.Second
	for _, cancelled := range []bool{true, false} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		asked := time.Now()
		go func() {
			conn, err := c.Dial(ctx, "tcp", "localhost:80")
			if err == nil {
				conn.Close()
			}
			done <- err
		}()
		req := request(t, sup)
		if cancelled {
			cancel()
		} else {
			ours, _ := dialed(t, l)
			answer(t, sup, req.ID, ours)
			ours.Close()
		}
		select {
		case err := <-done:
			switch {
			case time.Since(asked) > waitedOut:
				t.Errorf("cancelled %v: Dial returned %v after %v, at its own deadline", cancelled,
					err, time.Since(asked))
			case cancelled && !errors.Is(err, context.Canceled):
				t.Errorf("cancelled: %v, want the context's error", err)
			case !cancelled && err != nil:
				t.Errorf("the control, answered: %v", err)
			}
		case <-time.After(waitedOut + testkit.Bound(5*time.Second)):
			sup.Close()
			<-done
			t.Fatalf("cancelled %v: Dial went on waiting for the supervisor past its deadline",
				cancelled)
		}
		cancel()
	}

	for _, live := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if !live {
			cancel()
		}
		done := dialing(ctx, c)
		if !live {
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("a context done before Dial: %v, want the context's error", err)
			}
			_ = sup.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if n, err := sup.Read(make([]byte, MaxMessageBytes+1)); err == nil {
				t.Errorf("a context done before Dial: the supervisor was asked %d bytes", n)
			}
			continue
		}
		req := request(t, sup)
		ours, _ := dialed(t, l)
		answer(t, sup, req.ID, ours)
		ours.Close()
		if err := within(t, sup, done); err != nil {
			t.Errorf("the control, a live context asked and answered: %v", err)
		}
	}
}
