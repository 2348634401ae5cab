package door

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestPlaceGivenBackWithoutASlot: a request's place at the gate is taken
// before its body is read and its slot after (Server.admit); a request
// that ends between the two, with no slot taken, gives its place back,
// and only its place. On a door of one worker and no queue, each such
// request is followed by a run, which must be answered 200: a body past
// MaxBodyBytes (413), and a client that goes while its run waits for
// the slot another run holds. A place kept would leave every later run
// refused 429; a slot given back that was never taken would wait on the
// gate for ever, the 413 never written. The gate is seen empty after
// each.
func TestPlaceGivenBackWithoutASlot(t *testing.T) {
	fake := &fakeRunner{}
	s, err := New(Config{Runner: fake, Token: testToken, Workers: 1, Queue: 1, MaxBodyBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	const body = `{"source":"print(1)"}`
	admitted := func() int { s.gate.mu.Lock(); defer s.gate.mu.Unlock(); return s.gate.admitted }
	// bounded runs f, failing the test when it does not return in time:
	// a request held for ever by the gate is a failure, not a hang.
	bounded := func(what string, f func() int) int {
		t.Helper()
		got := make(chan int, 1)
		go func() { got <- f() }()
		select {
		case st := <-got:
			return st
		case <-time.After(testkit.Bound(10 * time.Second)):
			t.Fatalf("%s: no answer", what)
			return 0
		}
	}
	runs := 0
	control := func(after string) {
		t.Helper()
		if st := bounded("a run "+after, func() int { return postOn(t, addr, "/v1/run", testToken, body) }); st != http.StatusOK {
			t.Fatalf("a run %s: %d, want 200", after, st)
		}
		runs++
		waitFor(t, func() bool { return admitted() == 0 })
	}
	control("on an idle door")

	// A body past the bound, refused once read: a place, no slot.
	big := `{"source":"print('` + strings.Repeat("x", 8192) + `')"}`
	if st := bounded("a body past the bound", func() int {
		return postOn(t, addr, "/v1/run", testToken, big)
	}); st != http.StatusRequestEntityTooLarge {
		t.Fatalf("a body past the bound: %d, want 413", st)
	}
	control("after a body past the bound")

	// A run that waits for the slot, its client gone before it came.
	fake.hold.Store(true)
	holder := dialRaw(t, addr)
	head := "POST /v1/run HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n" +
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
	if _, err := fmt.Fprintf(holder.c, head, addr, testToken, len(body), body); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { running, _ := s.gate.load(); return running == 1 })
	waiter := dialRaw(t, addr)
	if _, err := fmt.Fprintf(waiter.c, head, addr, testToken, len(body), body); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return admitted() == 2 })
	waiter.c.Close() // its context is done while it waits for the slot
	waitFor(t, func() bool { return admitted() == 1 })
	holder.c.Close() // the held run ends with its request
	waitFor(t, func() bool { running, _ := s.gate.load(); return running == 0 })
	fake.hold.Store(false)
	control("after a client went while its run waited for the slot")
	if n := fake.ran.Load(); n != int64(runs+1) {
		t.Errorf("%d runs, want %d (the held one too)", n, runs+1)
	}
}
