package door

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/tenant"
)

// TestGateServesTheOwnerRunningFewest: a slot given back goes to the
// waiting turn whose owner runs fewest, even where that owner was given
// a slot later than the others. Three slots: acme is given two, then beta
// one; acme's third and beta's second wait, in that order. When beta's
// run ends, acme runs two and beta none: beta's turn is given the slot,
// though acme was given one less lately and came first. The control:
// when one of acme's runs ends, its turn waiting is given that slot.
func TestGateServesTheOwnerRunningFewest(t *testing.T) {
	g := newGate(3, 2, make(chan struct{}))
	ctx := context.Background()
	turnOf := func(owner string) *turn {
		held, err := g.place()
		if err != nil {
			t.Fatal(err)
		}
		held.owner = owner
		return held
	}
	taken := func(owner string) *turn {
		held := turnOf(owner)
		if err := held.take(ctx); err != nil {
			t.Fatal(err)
		}
		return held
	}
	waits := func(owner string) <-chan *turn {
		held, got := turnOf(owner), make(chan *turn, 1)
		g.mu.Lock()
		n := len(g.waiting)
		g.mu.Unlock()
		go func() {
			if err := held.take(ctx); err != nil {
				t.Error(err)
			}
			got <- held
		}()
		waitFor(t, func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.waiting) == n+1 })
		return got
	}
	acme1, _, beta1 := taken("acme"), taken("acme"), taken("beta")
	acme3, beta2 := waits("acme"), waits("beta")
	beta1.ran()
	select {
	case held := <-beta2:
		held.release()
	case held := <-acme3:
		held.release()
		t.Fatal("the slot beta gave back went to acme's turn, acme running two and beta none")
	}
	acme1.ran()
	(<-acme3).release() // the control
	acme1.release()
	beta1.release()
}

// TestGateSlotGivenToALeaver: a turn that stops waiting (its request
// gone, or the server stopping) as a slot is given to it hands that slot
// on, to a turn waiting or back to the gate: it holds no slot once its
// take has failed. The test holds the gate's lock while the waiting
// turn's context ends and the running turn's run ends (as ran does),
// so that the slot is given to a turn that has already woken to leave.
// Before the slot was handed on, the gate ran one fewer for good. The
// control: the turn that left is released, and the gate runs none.
func TestGateSlotGivenToALeaver(t *testing.T) {
	g := newGate(1, 1, make(chan struct{}))
	first, err := g.enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() {
		_, err := g.enter(ctx)
		left <- err
	}()
	// Blocked in take's select: woken by the cancel alone, the slot given
	// after it.
	waitFor(t, func() bool { return selecting("door.(*turn).take(") })
	g.mu.Lock()
	cancel() // the waiting turn wakes to leave, and waits for the lock
	first.done = true
	g.free(first.owner) // as ran does: the slot goes to the turn waiting
	g.replying++
	g.mu.Unlock()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("the turn that left: %v, want context.Canceled", err)
	}
	first.release()
	if r, q := g.load(); r != 0 || q != 0 {
		t.Fatalf("after both turns: %d running, %d queued; want none: the slot given to the turn "+
			"that left was kept", r, q)
	}
	again, err := g.enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	again.release()
}

// TestShares: on a door of more than one tenant, a tenant whose
// Concurrency is not set may hold half the door's places (workers and
// queue), rounded up, and one whose Concurrency is set is held to that,
// above the share or below it. A door of one tenant holds it to nothing
// of its own (the control: past the ten the test counts to).
func TestShares(t *testing.T) {
	for _, tt := range []struct {
		name           string
		workers, queue int
		acme           int // acme's Concurrency
		alone          bool
		wantAcme       int
		wantBeta       int
	}{
		{name: "four places", workers: 1, queue: 3, wantAcme: 2, wantBeta: 2},
		{name: "three places", workers: 1, queue: 2, wantAcme: 2, wantBeta: 2},
		{name: "a concurrency above the share", workers: 1, queue: 3, acme: 4, wantAcme: 4,
			wantBeta: 2},
		{name: "a concurrency below the share", workers: 2, queue: 4, acme: 1, wantAcme: 1,
			wantBeta: 3},
		{name: "one tenant", workers: 1, queue: 3, alone: true, wantAcme: 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := []tenant.Tenant{{Name: "acme", TokenSHA256: digest(tokenAcme),
				Concurrency: tt.acme}}
			if !tt.alone {
				ts = append(ts, tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta)})
			}
			s, err := New(Config{Runner: &fakeRunner{}, Workers: tt.workers, Queue: tt.queue,
				Tenants: ts})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []int{tt.wantAcme, tt.wantBeta} {
				if i >= len(ts) {
					break
				}
				st := s.tenants.Load().list[i]
				held := 0
				for ; held < 10; held++ {
					if _, err := st.concurrent(); err != nil {
						break
					}
				}
				if held != want {
					t.Errorf("%s holds %d runs at once, want %d", st.Name, held, want)
				}
			}
		})
	}
}

// TestMCPBodyHeldToTheRate: a call on /mcp whose body took a place
// (past freeBodyBytes) is held to its tenant's limits as any run is: its
// runs a second (the rate is asked as its run takes the body's place on,
// and a call past it gives the place back) and its runs at once (a
// second body of a tenant of concurrency one, while the first is held,
// is answered 429). The controls: each tenant's first call runs, the
// other tenant's call runs beside the refusals, and once the held body
// goes the second call runs.
func TestMCPBodyHeldToTheRate(t *testing.T) {
	body := bigCallBody()
	admitted := func(s *Server) int {
		s.gate.mu.Lock()
		defer s.gate.mu.Unlock()
		return s.gate.admitted
	}
	ran := func(data []byte) bool { return strings.Contains(string(data), `"status":"ok"`) }

	t.Run("rate", func(t *testing.T) {
		s, err := New(Config{Runner: &fakeRunner{}, Workers: 1, Queue: 1, Tenants: []tenant.Tenant{
			{Name: "acme", TokenSHA256: digest(tokenAcme), Rate: 0.001, Burst: 1},
			{Name: "beta", TokenSHA256: digest(tokenBeta)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + serveOn(t, s).addr
		if resp, data := postMCP(t, url, "Bearer "+tokenAcme, body); resp.StatusCode != 200 ||
			!ran(data) {
			t.Fatalf("acme's first large call: %d %.300s, want its run", resp.StatusCode, data)
		}
		resp, data := postMCP(t, url, "Bearer "+tokenAcme, body)
		if ran(data) || !strings.Contains(string(data), CodeRateLimit) {
			t.Errorf("acme's second large call, past its rate: %d %.300s, want %s",
				resp.StatusCode, data, CodeRateLimit)
		}
		waitFor(t, func() bool { return admitted(s) == 0 })
		if resp, data := postMCP(t, url, "Bearer "+tokenBeta, body); resp.StatusCode != 200 ||
			!ran(data) {
			t.Errorf("beta's large call: %d %.300s, want its run", resp.StatusCode, data)
		}
	})

	t.Run("concurrency", func(t *testing.T) {
		s, err := New(Config{Runner: &fakeRunner{}, Workers: 1, Queue: 1, Tenants: []tenant.Tenant{
			{Name: "acme", TokenSHA256: digest(tokenAcme), Concurrency: 1},
			{Name: "beta", TokenSHA256: digest(tokenBeta), Concurrency: 1},
		}})
		if err != nil {
			t.Fatal(err)
		}
		addr := serveOn(t, s).addr
		url := "http://" + addr
		rc := dialRaw(t, addr)
		half := freeBodyBytes + freeBodyBytes/2
		head := mcpHead(addr, tokenAcme, len(body))
		if _, err := io.WriteString(rc.c, head+body[:half]); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return admitted(s) == 1 })
		if resp, data := postMCP(t, url, "Bearer "+tokenAcme, body); resp.StatusCode != 429 ||
			!strings.Contains(string(data), CodeConcurrencyLimit) {
			t.Errorf("acme's second large call beside its held body: %d %.300s, want 429 %s",
				resp.StatusCode, data, CodeConcurrencyLimit)
		}
		if resp, data := postMCP(t, url, "Bearer "+tokenBeta, body); resp.StatusCode != 200 ||
			!ran(data) {
			t.Errorf("beta's large call: %d %.300s, want its run", resp.StatusCode, data)
		}
		rc.c.Close()
		waitFor(t, func() bool { return admitted(s) == 0 })
		if resp, data := postMCP(t, url, "Bearer "+tokenAcme, body); resp.StatusCode != 200 ||
			!ran(data) {
			t.Errorf("acme's large call once its held body went: %d %.300s, want its run",
				resp.StatusCode, data)
		}
	})
}

// TestDecodeListBound: a list of a request is read to its bound and
// refused one item past it (E301), args and allow alike; at the bound it
// is read whole (the control).
func TestDecodeListBound(t *testing.T) {
	list := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	for _, tt := range []struct {
		name, key, item string
		n               int
		wantErr         string
	}{
		{"args at the bound", "args", `"a"`, maxArgs, ""},
		{"args one past", "args", `"a"`, maxArgs + 1, "args: more than"},
		{"allow at the bound", "allow", `"io"`, maxAllow, ""},
		{"allow one past", "allow", `"io"`, maxAllow + 1, "allow: more than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"source":"print(1)","%s":%s}`, tt.key, list(tt.n, tt.item))
			req, err := decodeRunRequest([]byte(body))
			if tt.wantErr == "" {
				if err != nil || len(req.Args)+len(req.Allow) != tt.n {
					t.Fatalf("%d items: %v, %d args, %d allow; want them read", tt.n, err,
						len(req.Args), len(req.Allow))
				}
				return
			}
			if codes.CodeOf(err) != codes.E301 || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("%d items: %v, want E301 saying %q", tt.n, err, tt.wantErr)
			}
		})
	}
}

// selecting reports whether a goroutine is blocked in a select within
// the function fn names (its name as a stack shows it).
func selecting(fn string) bool {
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if strings.Contains(head, "[select") && strings.Contains(g, fn) {
			return true
		}
	}
	return false
}
