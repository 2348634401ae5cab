package door

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestGateTurn: a request whose run is over (turn.ran) gives its slot to
// the one waiting while its reply is written, and still counts against
// the gate's bound until it is released; load counts it neither running
// nor waiting. One slot and a queue of one, in phases.
func TestGateTurn(t *testing.T) {
	g := newGate(1, 1, make(chan struct{}))
	ctx := context.Background()
	load := func(phase string, wantRunning, wantQueued int) {
		t.Helper()
		if r, q := g.load(); r != wantRunning || q != wantQueued {
			t.Fatalf("%s: %d running, %d queued; want %d and %d",
				phase, r, q, wantRunning, wantQueued)
		}
	}
	// The first runs; the second waits for the slot.
	first, err := g.enter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// waiting enters from another goroutine and returns once that one
	// waits; its turn comes on the channel when it is given.
	waiting := func() <-chan *turn {
		c := make(chan *turn, 1)
		go func() {
			held, err := g.enter(ctx)
			if err != nil {
				t.Error(err)
			}
			c <- held
		}()
		waitFor(t, func() bool { _, q := g.load(); return q == 1 })
		return c
	}
	got := waiting()
	load("one running, one waiting", 1, 1)

	// The first's run is over: the second runs while the first replies.
	first.ran()
	second := <-got
	load("the first replying, the second running", 1, 0)

	// The reply still counts against the bound: a third is refused.
	if _, err := g.enter(ctx); !errors.Is(err, errBusy) {
		t.Fatalf("a third while the first replies: %v, want errBusy", err)
	}

	// Released, the first makes room: the third is admitted and waits.
	first.ran() // a second call gives nothing back twice
	first.release()
	got = waiting()
	load("the second running, the third waiting", 1, 1)

	// A turn released without ran gives back its slot too.
	second.release()
	third := <-got
	load("the third running", 1, 0)
	third.release()
	load("none", 0, 0)
	if _, err := g.enter(ctx); err != nil {
		t.Fatalf("an idle gate refused: %v", err)
	}
}

// TestReplyWrittenOutsideTheSlot: over HTTP, a run's reply is written
// after its slot is given back. With one worker, a client that sends a
// run and reads nothing of its reply (16 MiB, more than the connection
// buffers) leaves its handler writing; meanwhile the slot is free and
// another client's run is answered. The first reply, read last, is
// whole.
func TestReplyWrittenOutsideTheSlot(t *testing.T) {
	big := strings.Repeat("x", 16<<20)
	fake := &fakeRunner{stdout: big}
	s, ts := newTestServer(t, Config{Runner: fake, Workers: 1, Queue: 1})
	replying := func() int {
		s.gate.mu.Lock()
		defer s.gate.mu.Unlock()
		return s.gate.replying
	}
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"source":"print(1)"}`
	if _, err := fmt.Fprintf(conn, "POST /v1/run HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		ts.Listener.Addr(), bearer, len(body), body); err != nil {
		t.Fatal(err)
	}
	// Its run is over and its reply is being written, into a connection
	// nobody reads: the slot is free.
	waitFor(t, func() bool { return replying() == 1 })
	if r, q := s.gate.load(); r != 0 || q != 0 {
		t.Fatalf("while the first reply is written: %d running, %d queued; want none", r, q)
	}
	resp, v := do(t, ts, "POST", "/v1/run", bearer, body)
	if resp.StatusCode != 200 || v["stdout"] != big {
		t.Fatalf("the second run, the first reply unread: %d, %d bytes of standard output; "+
			"want 200 and %d", resp.StatusCode, len(fmt.Sprint(v["stdout"])), len(big))
	}
	if replying() != 1 {
		t.Fatalf("%d replies being written after the second run, want the first's", replying())
	}
	// The control: the first reply, read now, is whole.
	first, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Body.Close()
	n, err := io.Copy(io.Discard, first.Body)
	if err != nil || first.StatusCode != 200 || n != first.ContentLength || n < int64(len(big)) {
		t.Fatalf("the first reply: %d, %d of %d bytes (%v); want 200, whole, past %d",
			first.StatusCode, n, first.ContentLength, err, len(big))
	}
	waitFor(t, func() bool { return replying() == 0 })
	if got := fake.ran.Load(); got != 2 {
		t.Errorf("%d runs, want 2", got)
	}
}

// TestKeepUntilReplied: a tool call's turn is held by its request until
// the reply is written (heldReplies.release); a turn handed over after
// that, by a call whose request ended before its tool returned, is
// given back by the caller at once, not kept by a request that will
// never release it again. Without a request to hold it (a transport
// that is not HTTP), the caller gives it back too.
func TestKeepUntilReplied(t *testing.T) {
	tests := []struct {
		name         string
		held         *heldReplies // nil: no request holds turns
		written      bool         // the reply was written before the turn came
		wantHeldOver bool         // the turn stays admitted after the caller's release
	}{
		{name: "held until the reply is written", held: &heldReplies{}, wantHeldOver: true},
		{name: "the reply already written", held: &heldReplies{}, written: true},
		{name: "no request holds turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGate(1, 0, make(chan struct{}))
			ctx := context.Background()
			if tt.held != nil {
				ctx = context.WithValue(ctx, heldRepliesKey{}, tt.held)
				if tt.written {
					tt.held.release()
				}
			}
			held, err := g.enter(ctx)
			if err != nil {
				t.Fatal(err)
			}
			held.ran()
			keepUntilReplied(ctx, held)()
			_, busy := g.enter(ctx)
			if gotHeld := errors.Is(busy, errBusy); gotHeld != tt.wantHeldOver {
				t.Fatalf("after the caller's release, the turn held: %v (%v); want %v",
					gotHeld, busy, tt.wantHeldOver)
			}
			if !tt.wantHeldOver {
				return
			}
			// The reply written, its request gives the turn back.
			tt.held.release()
			again, err := g.enter(ctx)
			if err != nil {
				t.Fatalf("after the reply was written: %v", err)
			}
			again.release()
		})
	}
}
