package door

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/tenant"
)

// readReply reads the reply on rc, within a bound, as its status and body.
func readReply(t *testing.T, rc *rawConn) (int, string) {
	t.Helper()
	_ = rc.c.SetReadDeadline(time.Now().Add(testkit.Bound(time.Minute)))
	resp, err := http.ReadResponse(rc.r, nil)
	if err != nil {
		t.Fatalf("read a reply: %v", err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(data)
}

// TestNoTenantTakesEveryPlace: on a door of two tenants whose tenants
// file sets no concurrency, one tenant holds at most its share, half the
// places, however it holds them (bodies sent a byte at a time, runs
// running and waiting), and the other's run is admitted. Before, acme's
// two slow bodies and two runs took the four places of the door and
// beta was answered 429 busy for as long as they lasted (a real server:
// eighteen connections sending a byte at a time, no CPU, a minute at a
// time). The controls: acme's runs past its share are answered 429
// concurrency-limit naming the share, its bodies within it run once
// finished, and a door of acme alone lets it take every place.
func TestNoTenantTakesEveryPlace(t *testing.T) {
	const body = `{"source":"print(1)"}`
	slow := func(t *testing.T, addr, token string) *rawConn {
		rc := dialRaw(t, addr)
		head := fmt.Sprintf("POST /v1/run HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, token, len(body))
		if _, err := io.WriteString(rc.c, head+body[:3]); err != nil {
			t.Fatal(err)
		}
		return rc
	}
	admitted := func(s *Server) int { s.gate.mu.Lock(); defer s.gate.mu.Unlock(); return s.gate.admitted }

	fake := &fakeRunner{block: make(chan struct{})}
	s, err := New(Config{Runner: fake, Workers: 1, Queue: 3, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme)},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	var held []*rawConn
	for range 2 {
		held = append(held, slow(t, addr, tokenAcme))
	}
	waitFor(t, func() bool { return admitted(s) == 2 })
	type result struct {
		st   int
		body string
	}
	acme := make(chan result, 2)
	for range 2 {
		go func() { st, got := postRead(t, addr, tokenAcme, body); acme <- result{st, got} }()
	}
	var refused []result
	waitFor(t, func() bool {
		select {
		case r := <-acme:
			refused = append(refused, r)
		default:
		}
		return len(refused) == 2 || admitted(s) == 4
	})
	beta := make(chan result, 1)
	go func() { st, got := postRead(t, addr, tokenBeta, body); beta <- result{st, got} }()
	waitFor(t, func() bool { return admitted(s) == 3 || len(beta) == 1 })
	close(fake.block) // every run runs
	if r := <-beta; r.st != http.StatusOK {
		t.Errorf("beta's run beside acme's slow bodies and runs: %d %.300s, want 200: acme took "+
			"every place", r.st, r.body)
	}
	for len(refused) < 2 {
		refused = append(refused, <-acme)
	}
	for i, r := range refused {
		if r.st != http.StatusTooManyRequests || !strings.Contains(r.body, CodeConcurrencyLimit) ||
			!strings.Contains(r.body, "share") {
			t.Errorf("acme's run %d past its share: %d %.300s, want 429 %s naming its share", i+1,
				r.st, r.body, CodeConcurrencyLimit)
		}
	}
	for i, rc := range held {
		if _, err := io.WriteString(rc.c, body[3:]); err != nil {
			t.Fatal(err)
		}
		if st, got := readReply(t, rc); st != http.StatusOK {
			t.Errorf("acme's body %d within its share, finished: %d %.300s, want 200", i+1, st, got)
		}
	}

	// A door of one tenant: no share but the door's bound.
	alone, err := New(Config{Runner: &fakeRunner{}, Workers: 1, Queue: 3, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	addr = serveOn(t, alone).addr
	for range 4 {
		slow(t, addr, tokenAcme)
	}
	waitFor(t, func() bool { return admitted(alone) == 4 })
}

// postRead sends a run's body to addr with token on a connection of its
// own and returns the reply's status and body.
func postRead(t *testing.T, addr, token, body string) (int, string) {
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/v1/run", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: tr, Timeout: testkit.Bound(time.Minute)}).Do(req)
	if err != nil {
		t.Errorf("POST /v1/run: %v", err)
		return 0, ""
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// TestQueueServesTheTenantRunningFewest: a slot given back goes to the
// waiting tenant that runs fewest, not to the first in the queue. acme
// has one run running and two waiting, beta one waiting behind them;
// when acme's run ends, beta's runs next. Before, the queue was one
// line, and beta's run waited for every run of acme's ahead of it (on a
// real server, 30 s each). The control: acme's runs waiting run after
// it, each in turn.
func TestQueueServesTheTenantRunningFewest(t *testing.T) {
	fake := &fakeRunner{start: make(chan struct{}, 8), block: make(chan struct{})}
	s, err := New(Config{Runner: fake, Workers: 1, Queue: 4, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme), Concurrency: 4},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, s).addr
	type result struct {
		who string
		st  int
	}
	done := make(chan result, 4)
	send := func(who, token string) {
		go func() {
			done <- result{who, postOn(t, addr, "/v1/run", token, `{"source":"print(1)"}`)}
		}()
	}
	waiting := func() int { s.gate.mu.Lock(); defer s.gate.mu.Unlock(); return len(s.gate.waiting) }
	send("acme", tokenAcme)
	<-fake.start // acme's first run runs, and holds the one worker
	send("acme", tokenAcme)
	waitFor(t, func() bool { return waiting() == 1 })
	send("acme", tokenAcme)
	waitFor(t, func() bool { return waiting() == 2 })
	send("beta", tokenBeta)
	waitFor(t, func() bool { return waiting() == 3 })
	var order []string
	for range 4 {
		fake.block <- struct{}{} // the run running ends
		r := <-done
		if r.st != http.StatusOK {
			t.Errorf("%s's run: %d, want 200", r.who, r.st)
		}
		order = append(order, r.who)
		if len(order) < 4 {
			<-fake.start // the next has begun
		}
	}
	if got := strings.Join(order, " "); got != "acme beta acme acme" {
		t.Errorf("the runs ended in the order %s, want acme beta acme acme: beta waited behind "+
			"every run of acme's queued before it", got)
	}
}
