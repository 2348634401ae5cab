package door

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestHaltEndsTheRunsInFlight: Halt cancels every run in flight, each
// ending E307 with the cause that names the halt, its client answered.
// The control is Stop alone, which lets a run in flight go on: the same
// run is still running after it, and ends only at the Halt. Over HTTP
// (/v1/run) and MCP (tools/call on /mcp). Before, a server told to stop
// waited for its runs to their timeout, and a second signal did nothing.
func TestHaltEndsTheRunsInFlight(t *testing.T) {
	for _, door := range []string{"/v1/run", "/mcp"} {
		t.Run(strings.TrimPrefix(door, "/"), func(t *testing.T) {
			s, fake := holdingServer(t)
			fake.start = make(chan struct{}, 1)
			// Each request's context ends with the test, so that a run
			// Halt fails to end does not hold the server's Close.
			base, cancel := context.WithCancel(context.Background())
			ts := httptest.NewUnstartedServer(s.Handler())
			ts.Config.BaseContext = func(net.Listener) context.Context { return base }
			ts.Start()
			defer ts.Close()
			defer cancel()
			addr := ts.Listener.Addr().String()
			type answer struct {
				status int
				body   string
			}
			answered := make(chan answer, 1)
			go func() {
				var a answer
				if door == "/mcp" {
					resp, data := postMCP(t, ts.URL, "Bearer "+testToken, mcpCallBody("run"))
					a = answer{resp.StatusCode, string(data)}
				} else {
					a.status, a.body = postRead(t, addr, testToken, `{"source":"print(1)"}`)
				}
				answered <- a
			}()
			<-fake.start
			s.Stop()
			if got, _ := postRead(t, addr, testToken, `{"source":"print(1)"}`); got != http.StatusServiceUnavailable {
				t.Errorf("a run asked for after Stop: %d, want 503", got)
			}
			fake.mu.Lock()
			ended := len(fake.ended)
			fake.mu.Unlock()
			if ended != 0 {
				t.Fatalf("Stop alone ended %d runs in flight, want none", ended)
			}
			s.Halt()
			var a answer
			select {
			case a = <-answered:
			case <-time.After(testkit.Bound(5 * time.Second)): // a run Halt ends ends at once
				t.Fatal("the run in flight was not ended by Halt")
			}
			if a.status != http.StatusOK || !strings.Contains(a.body, "E307") ||
				!strings.Contains(a.body, errHalted.Error()) {
				t.Errorf("the run in flight, halted: %d %.500s; want 200, E307 naming the halt", a.status,
					a.body)
			}
		})
	}
}

// TestHaltAloneStops: Halt stops the door as Stop does, whether or not
// Stop came first: a run asked for after it is refused, 503. The control
// is the same run asked for before it, answered.
func TestHaltAloneStops(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	addr := ts.Listener.Addr().String()
	if got, body := postRead(t, addr, testToken, `{"source":"print(1)"}`); got != http.StatusOK {
		t.Fatalf("a run before Halt: %d %.300s, want 200", got, body)
	}
	s.Halt()
	got, body := postRead(t, addr, testToken, `{"source":"print(1)"}`)
	if got != http.StatusServiceUnavailable {
		t.Errorf("a run asked for after Halt alone: %d %.300s, want 503", got, body)
	}
}
