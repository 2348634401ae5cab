package door

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/tenant"
)

// TestLookupsTakeNoTurnOfTheRuns is the flood of an operator's report:
// a tenant limited to 1 run at once sends receipt lookups that read a
// slow store from 40 connections. They take turns of its own (1 at once:
// the rest refused 429 concurrency-limit), never of the runs' gate, and
// the other tenant's runs all run beside them. The control: the flooding
// tenant's first lookup does read the store.
func TestLookupsTakeNoTurnOfTheRuns(t *testing.T) {
	fake := &fakeRunner{looking: make(chan struct{}, 64), lookWait: make(chan struct{})}
	s, err := New(Config{Runner: fake, Workers: 1, Queue: 0, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme), Rate: 1, Concurrency: 1,
			Requests: 1000},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	var wg sync.WaitGroup
	statuses := make(chan int, 40)
	for range 40 {
		wg.Go(func() {
			statuses <- getOn(t, addr, "/v1/receipts/00000000000000aa", tokenAcme)
		})
	}
	<-fake.looking // acme's one lookup in flight, held by the slow store
	refused := 0
	for range 39 {
		if st := <-statuses; st == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused != 39 {
		t.Errorf("acme's lookups past its 1 at once: %d of 39 refused 429, want all", refused)
	}
	for i := range 10 {
		if st := postOn(t, addr, "/v1/run", tokenBeta, `{"source":"print(1)"}`); st != 200 {
			t.Errorf("beta's run %d beside acme's lookups: %d, want 200", i+1, st)
		}
	}
	close(fake.lookWait)
	wg.Wait()
	if st := <-statuses; st != http.StatusNotFound {
		t.Errorf("acme's lookup that read the store: %d, want 404 (no such run)", st)
	}
	if n := fake.receipts.Load(); n != 1 {
		t.Errorf("the store was read %d times, want once", n)
	}
}

// TestRequestsCountAgainstTheirTenant: every request, health and lookups
// too, takes a turn of its tenant's bound of requests; past it the tenant
// is answered 429 rate-limit while the other tenant is answered.
func TestRequestsCountAgainstTheirTenant(t *testing.T) {
	fake := &fakeRunner{}
	_, ts, _ := tenantServer(t, fake,
		tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme), Requests: 0.01,
			RequestBurst: 3},
		tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta)})
	paths := []string{"/v1/health", "/v1/receipts/00000000000000aa", "/v1/health"}
	for _, p := range paths {
		if resp, v := do(t, ts, "GET", p, "Bearer "+tokenAcme, ""); resp.StatusCode == 429 {
			t.Fatalf("acme's %s within its burst: %d %v", p, resp.StatusCode, v)
		}
	}
	resp, v := do(t, ts, "GET", "/v1/health", "Bearer "+tokenAcme, "")
	code, msg := errCode(v)
	if resp.StatusCode != 429 || code != CodeRateLimit ||
		!strings.Contains(msg, "tenant acme may send 0.01 requests a second (a burst of 3)") {
		t.Errorf("acme past its requests: %d %s %q", resp.StatusCode, code, msg)
	}
	for range 5 {
		if resp, _ := do(t, ts, "GET", "/v1/health", "Bearer "+tokenBeta, ""); resp.StatusCode != 200 {
			t.Errorf("beta's health beside acme past its bound: %d, want 200", resp.StatusCode)
		}
	}
}

// TestIdleConnectionsAreTakenBackFairly: a tenant holding every slot
// with idle keep-alive connections has its longest idle one closed (seen
// from outside: the client's end reads EOF) when another tenant asks for
// a slot, which is answered. The controls: the tenant holding them all
// is refused a slot more (none is taken back from itself), and its other
// connections stay open.
func TestIdleConnectionsAreTakenBackFairly(t *testing.T) {
	s, addr := fourConnsTwoTenants(t, &fakeRunner{})
	var held []*rawConn
	for i := range 4 {
		c := dialRaw(t, addr)
		if st := c.get(t, "/v1/health", tokenAcme); st != 200 {
			t.Fatalf("acme's connection %d: %d", i+1, st)
		}
		held = append(held, c)
		// Idle in the order they were made: the server marks one idle
		// after its reply, which a loaded machine can delay past the next.
		waitFor(t, func() bool { return s.conns.idleOf("acme") == i+1 })
	}
	if st := dialRaw(t, addr).get(t, "/v1/health", tokenAcme); st != http.StatusTooManyRequests {
		t.Errorf("acme's fifth connection: %d, want 429 busy", st)
	}
	if st := dialRaw(t, addr).get(t, "/v1/health", tokenBeta); st != 200 {
		t.Errorf("beta's connection while acme holds every slot: %d, want 200", st)
	}
	if !held[0].closed(time.Minute) {
		t.Error("acme's longest idle connection was not closed")
	}
	for i, c := range held[1:] {
		if c.closed(50 * time.Millisecond) {
			t.Errorf("acme's connection %d was closed too", i+2)
		}
	}
	if a, b := s.conns.heldBy("acme"), s.conns.heldBy("beta"); a != 3 || b != 1 {
		t.Errorf("held: acme %d, beta %d; want 3 and 1", a, b)
	}
}

// TestTenantConnectionsBound: a tenant with a bound of its own is refused
// a connection past it, naming the bound, while another tenant is given
// one (the server's slots are far from full).
func TestTenantConnectionsBound(t *testing.T) {
	_, addr := acmeBoundOn(t, 2)
	for i := range 2 {
		if st := dialRaw(t, addr).get(t, "/v1/health", tokenAcme); st != 200 {
			t.Fatalf("acme's connection %d within its bound: %d", i+1, st)
		}
	}
	c := dialRaw(t, addr)
	if st := c.get(t, "/v1/health", tokenAcme); st != http.StatusTooManyRequests ||
		!strings.Contains(c.body, "tenant acme may hold 2 connections at once") {
		t.Errorf("acme's third connection: %d %s, want 429 naming its bound", st, c.body)
	}
	if st := dialRaw(t, addr).get(t, "/v1/health", tokenBeta); st != 200 {
		t.Errorf("beta's connection: %d, want 200", st)
	}
}

// rawConn is one client connection kept open across requests.
type rawConn struct {
	c    net.Conn
	r    *bufio.Reader
	body string // the last reply's body
}

// dialRaw opens a connection to addr, closed when the test ends.
func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{c: c, r: bufio.NewReader(c)}
}

// get sends GET path with token on the connection, keeping it open, and
// returns the reply's status.
func (rc *rawConn) get(t *testing.T, path, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://door"+path, nil)
	req.Host = rc.c.RemoteAddr().String()
	req.Header.Set("Authorization", "Bearer "+token)
	if err := req.Write(rc.c); err != nil {
		t.Fatal(err)
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(rc.r, req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	rc.body = string(data)
	return resp.StatusCode
}

// closed reports whether the server closed the connection within d.
func (rc *rawConn) closed(d time.Duration) bool {
	_ = rc.c.SetReadDeadline(time.Now().Add(d))
	_, err := rc.r.ReadByte()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// getOn sends GET path to addr with token on a connection of its own and
// returns the reply's status.
func getOn(t *testing.T, addr, path, token string) int {
	return send(t, addr, http.MethodGet, path, token, "")
}

// postOn sends POST path with body to addr with token on a connection of
// its own and returns the reply's status.
func postOn(t *testing.T, addr, path, token, body string) int {
	return send(t, addr, http.MethodPost, path, token, body)
}

func send(t *testing.T, addr, method, path, token, body string) int {
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: tr, Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// heldBy is how many authorized connections tenant holds.
func (c *conns) heldBy(tenant string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held[tenant]
}

// idleOf is how many of tenant's connections are idle.
func (c *conns) idleOf(tenant string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, h := range c.authorized {
		if h.tenant == tenant && !h.idle.IsZero() {
			n++
		}
	}
	return n
}

// TestSlowBodyHoldsNoSlot: a client that sends the body of its run
// slowly holds a place among the runs admitted, and no slot to run in:
// on a door of one worker, another tenant's run is answered while acme's
// body is still coming (it waited for the whole of the server's read
// timeout, 60 s, before). The control: acme's run, its body finished,
// then runs too, and a door whose queue is full still refuses a third
// request busy, so the place counts against the bound.
func TestSlowBodyHoldsNoSlot(t *testing.T) {
	fake := &fakeRunner{}
	s, err := New(Config{Runner: fake, Workers: 1, Queue: 1, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme)},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	rc := dialRaw(t, addr)
	const body = `{"source":"print(1)"}`
	head := fmt.Sprintf("POST /v1/run HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, tokenAcme, len(body))
	if _, err := io.WriteString(rc.c, head+body[:5]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { s.gate.mu.Lock(); defer s.gate.mu.Unlock(); return s.gate.admitted == 1 })
	answered := make(chan int, 1)
	go func() { answered <- postOn(t, addr, "/v1/run", tokenBeta, body) }()
	select {
	case st := <-answered:
		if st != http.StatusOK {
			t.Errorf("beta's run beside acme's slow body: %d, want 200", st)
		}
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatal("beta's run not answered while acme's body was still coming: the body holds the slot")
	}
	if st := postOn(t, addr, "/v1/run", tokenBeta, body); st != http.StatusOK {
		t.Errorf("beta's second run: %d, want 200", st)
	}
	// The bound still counts the slow body: one worker and one place in
	// the queue, both taken (acme's body, and a run held in its worker).
	fake.hold.Store(true)
	held := dialRaw(t, addr)
	if _, err := io.WriteString(held.c, strings.Replace(head, tokenAcme, tokenBeta, 1)+body); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { running, _ := s.gate.load(); return running == 1 })
	if st := postOn(t, addr, "/v1/run", tokenBeta, body); st != http.StatusTooManyRequests {
		t.Errorf("a run past the bound, acme's body counted in it: %d, want 429", st)
	}
	held.c.Close() // its run ends with its request
	waitFor(t, func() bool { running, _ := s.gate.load(); return running == 0 })
	fake.hold.Store(false)
	if _, err := io.WriteString(rc.c, body[5:]); err != nil {
		t.Fatal(err)
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(rc.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("acme's run, its body finished: %d, want 200", resp.StatusCode)
	}
	if n := fake.ran.Load(); n != 4 {
		t.Errorf("%d runs, want 4", n)
	}
}

// TestNoTenantTakesEveryLookup: on a door of several tenants, one that
// sets no concurrency holds at most its share of the door's receipt
// lookups reading a slow store (half of those read at once): its
// lookups past it are 429 concurrency-limit, and another tenant's lookup
// still reaches the store. Before, the first took every lookup the door
// reads at once, and the other's waited until the store answered.
func TestNoTenantTakesEveryLookup(t *testing.T) {
	fake := &fakeRunner{looking: make(chan struct{}, 64), lookWait: make(chan struct{})}
	acme := tenant.Tenant{Name: "acme", TokenSHA256: digest(tokenAcme)}
	beta := tenant.Tenant{Name: "beta", TokenSHA256: digest(tokenBeta)}
	_, srv, _ := tenantServer(t, fake, acme, beta) // 8 workers: 8 lookups at once, a share of 4
	addr := strings.TrimPrefix(srv.URL, "http://")
	statuses := make(chan int, 16)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { statuses <- getOn(t, addr, "/v1/receipts/00000000000000aa", tokenAcme) })
	}
	for range 4 {
		<-fake.looking // acme's share, each held by the slow store
	}
	if st := getOn(t, addr, "/v1/receipts/00000000000000aa", tokenAcme); st != 429 {
		t.Errorf("acme's fifth lookup while four wait on the store: %d, want 429", st)
	}
	wg.Go(func() { statuses <- getOn(t, addr, "/v1/receipts/00000000000000bb", tokenBeta) })
	select {
	case <-fake.looking: // beta's reached the store
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Error("beta's lookup did not reach the store beside acme's")
	}
	close(fake.lookWait)
	wg.Wait()
	close(statuses)
	for st := range statuses {
		if st == 429 {
			t.Errorf("a lookup within its share answered %d", st)
		}
	}
}

// TestConnectionChargedToItsLatestTenant: a connection is charged to the
// tenant whose token its latest request carried: once beta's connection
// carries acme's token it is acme's, and acme, at its bound of one, is
// refused another (it was beta's still, and acme held two). The control:
// acme's first connection, before, is answered.
func TestConnectionChargedToItsLatestTenant(t *testing.T) {
	s, addr := acmeBoundOn(t, 1)
	first := dialRaw(t, addr)
	if st := first.get(t, "/v1/health", tokenAcme); st != 200 {
		t.Fatalf("the control, acme's first connection: %d, want 200", st)
	}
	first.c.Close()
	waitFor(t, func() bool { return s.conns.heldBy("acme") == 0 })
	shared := dialRaw(t, addr)
	for _, tok := range []string{tokenBeta, tokenAcme} {
		if st := shared.get(t, "/v1/health", tok); st != 200 {
			t.Fatalf("the shared connection: %d, want 200", st)
		}
	}
	if a, b := s.conns.heldBy("acme"), s.conns.heldBy("beta"); a != 1 || b != 0 {
		t.Errorf("held: acme %d, beta %d; want 1 and 0", a, b)
	}
	c := dialRaw(t, addr)
	if st := c.get(t, "/v1/health", tokenAcme); st != http.StatusTooManyRequests {
		t.Errorf("acme's second connection beside the one it took from beta: %d, want 429", st)
	}
}

// TestBusyConnectionIsNotTakenBack: when every slot is taken, the
// connection taken back from the tenant holding most is an idle one,
// never one whose request is in flight: acme's run, on the connection it
// made last, is answered, and its longest idle connection is closed. The
// control: with acme holding every slot but one more than beta, beta is
// refused a second (taking one back would leave acme the fewer).
func TestBusyConnectionIsNotTakenBack(t *testing.T) {
	fake := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 1)}
	s, addr := fourConnsTwoTenants(t, fake)
	var idle []*rawConn
	for i := range 3 {
		c := dialRaw(t, addr)
		if st := c.get(t, "/v1/health", tokenAcme); st != 200 {
			t.Fatalf("acme's connection %d: %d", i+1, st)
		}
		idle = append(idle, c)
		waitFor(t, func() bool { return s.conns.idleOf("acme") == i+1 })
	}
	busy := dialRaw(t, addr)
	req, _ := http.NewRequest(http.MethodPost, "http://door/v1/run",
		strings.NewReader(`{"source":"print(1)"}`))
	req.Host = busy.c.RemoteAddr().String()
	req.Header.Set("Authorization", "Bearer "+tokenAcme)
	req.Header.Set("Content-Type", "application/json")
	if err := req.Write(busy.c); err != nil {
		t.Fatal(err)
	}
	<-fake.start // acme's run is in flight on its fourth connection
	if st := dialRaw(t, addr).get(t, "/v1/health", tokenBeta); st != 200 {
		t.Errorf("beta's connection while acme holds every slot: %d, want 200", st)
	}
	close(fake.block)
	_ = busy.c.SetReadDeadline(time.Now().Add(time.Minute))
	if resp, err := http.ReadResponse(busy.r, req); err != nil || resp.StatusCode != 200 {
		t.Errorf("acme's run in flight as beta took a slot: %v, %v; want 200", resp, err)
	}
	if !idle[0].closed(time.Minute) {
		t.Error("acme's longest idle connection was not closed")
	}
	for i, c := range idle[1:] {
		if c.closed(50 * time.Millisecond) {
			t.Errorf("acme's idle connection %d was closed", i+2)
		}
	}
}

// TestNoConnectionTakenBackForOneMore: when every slot is taken and the
// tenant holding most holds one more than the one asking, none is taken
// back (it would leave the other the fewer): beta is refused a second,
// and acme's connections stay open. The control: with one slot more,
// beta is given it.
func TestNoConnectionTakenBackForOneMore(t *testing.T) {
	for _, slots := range []int{3, 4} {
		s, err := New(Config{Runner: &fakeRunner{}, MaxConns: slots, Tenants: []tenant.Tenant{
			{Name: "acme", TokenSHA256: digest(tokenAcme)},
			{Name: "beta", TokenSHA256: digest(tokenBeta)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		addr := serveOn(t, s).addr
		var acme []*rawConn
		for i := range 2 {
			c := dialRaw(t, addr)
			if st := c.get(t, "/v1/health", tokenAcme); st != 200 {
				t.Fatalf("acme's connection %d: %d", i+1, st)
			}
			acme = append(acme, c)
			waitFor(t, func() bool { return s.conns.idleOf("acme") == i+1 })
		}
		if st := dialRaw(t, addr).get(t, "/v1/health", tokenBeta); st != 200 {
			t.Fatalf("%d slots: beta's first connection: %d", slots, st)
		}
		want := http.StatusTooManyRequests
		if slots == 4 {
			want = 200
		}
		if st := dialRaw(t, addr).get(t, "/v1/health", tokenBeta); st != want {
			t.Errorf("%d slots: beta's second connection, acme holding 2: %d, want %d", slots, st,
				want)
		}
		for i, c := range acme {
			if c.closed(50 * time.Millisecond) {
				t.Errorf("%d slots: acme's connection %d was closed", slots, i+1)
			}
		}
	}
}

// fourConnsTwoTenants serves a door of r with room for four connections
// and two tenants, acme and beta, and returns it and its address.
func fourConnsTwoTenants(t *testing.T, r Runner) (*Server, string) {
	t.Helper()
	s, err := New(Config{Runner: r, MaxConns: 4, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme)},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s, serveOn(t, s).addr
}

// acmeBoundOn serves two tenants, acme held to conns connections of its
// own and beta to none, and returns the server and its address.
func acmeBoundOn(t *testing.T, conns int) (*Server, string) {
	t.Helper()
	s, err := New(Config{Runner: &fakeRunner{}, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme), Connections: conns},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s, serveOn(t, s).addr
}
