package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// The flooding tenant's connections: lookupConns sending receipt lookups,
// idleConns held open with keep-alive after one health request.
const (
	lookupConns = 40
	idleConns   = 200
)

// floodTenants is a tenants file: acme, limited to 1 run a second and 1
// at once, floods; beta, with no limits of its own, is measured.
const floodTenants = `{"tenants": [
  {"name": "acme", "token_sha256": "%s", "rate": 1, "burst": 1, "concurrency": 1},
  {"name": "beta", "token_sha256": "%s"}
]}`

// BenchmarkServeFlood: beta's hello.vel runs through sabline serve (2
// workers), from serveClients keep-alive clients, in rounds of floodTurn
// runs with acme quiet, then with acme flooding at its limits: receipt
// lookups of runs that never were from lookupConns connections, runs past
// its rate (the connections started spread over a second), and idleConns
// keep-alive connections held idle. In
// "polite" acme waits the Retry-After it is answered; in "hostile" it
// sends again at once. Beta's flooded turn starts once the flood is at
// its limits (each of its connections refused once: its burst spent), and
// lasts longer than the Retry-After, so that it sees the flood's whole
// cycle rather than its first burst. It reports beta's runs/s quiet and
// flooded and flooded/quiet (the share of its throughput the flood leaves
// it), and beta's requests that were not a run ended ok (failures: none
// allowed).
func BenchmarkServeFlood(b *testing.B) {
	for _, mode := range []string{"polite", "hostile"} {
		b.Run(mode, func(b *testing.B) { benchFlood(b, mode == "polite") })
	}
}

func benchFlood(b *testing.B, polite bool) {
	acme, beta := "acme-flood-token-0123456789abcdef", "beta-measured-token-0123456789ab"
	sum := func(tok string) string { d := sha256.Sum256([]byte(tok)); return hex.EncodeToString(d[:]) }
	tf := filepath.Join(b.TempDir(), "tenants.json")
	if err := os.WriteFile(tf, fmt.Appendf(nil, floodTenants, sum(acme), sum(beta)), 0o600); err != nil {
		b.Fatal(err)
	}
	s := startServe(b, sabline(b), "64", "--tenants", tf)
	s.auth = "Bearer " + beta
	n := min(b.N, 2*floodTurn)
	quiet, flooded := &tally{}, &tally{}
	var sent atomic.Int64
	var during int64 // acme's requests sent during beta's flooded turns
	b.ResetTimer()
	for done := 0; done < n; done += floodTurn {
		s.load(quiet, min(floodTurn, n-done), serveClients)
		stop := floodOn(b, s, "Bearer "+acme, polite, &sent)
		before := sent.Load()
		s.load(flooded, min(floodTurn, n-done), serveClients)
		during += sent.Load() - before
		stop()
	}
	b.StopTimer()
	b.ReportMetric(float64(quiet.elapsed.Nanoseconds()+flooded.elapsed.Nanoseconds())/float64(2*n),
		"ns/op")
	q := float64(quiet.ok.Load()) / quiet.elapsed.Seconds()
	f := float64(flooded.ok.Load()) / flooded.elapsed.Seconds()
	b.ReportMetric(q, "quiet-runs/s")
	b.ReportMetric(f, "flooded-runs/s")
	b.ReportMetric(f/q, "flooded/quiet")
	b.ReportMetric(float64(during)/flooded.elapsed.Seconds(), "flood-req/s")
	failures := quiet.failed.Load() + quiet.busy.Load() + flooded.failed.Load() + flooded.busy.Load()
	b.ReportMetric(float64(failures), "failures")
	if failures != 0 {
		b.Errorf("beta: %d requests not a run ended ok beside the flood, want none", failures)
	}
}

// floodTurn is how many of beta's runs one turn of BenchmarkServeFlood
// takes, at most two turns of each a count: at this machine's 1,000 to
// 1,400 runs a second, two to three times the 1 s a refused client of
// acme waits, so that a flooded turn holds whole cycles of the flood.
const floodTurn = 3000

// floodOn starts acme's flood on s, returns once the flood is at its
// limits (each of its sending connections refused 429 once), and returns
// what stops it and waits for it to end; sent counts its requests past
// the idle connections' first.
func floodOn(b *testing.B, s *served, auth string, polite bool, sent *atomic.Int64) func() {
	base := strings.TrimSuffix(s.url, "/v1/run")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var refused sync.WaitGroup // each sending connection's first 429
	send := func(c *http.Client, method, path, body string, count bool) (limited bool) {
		req, _ := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", auth)
		resp, err := c.Do(req)
		if err != nil {
			return false // the flood was stopped
		}
		if count {
			sent.Add(1)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		limited = resp.StatusCode == http.StatusTooManyRequests
		if polite && limited {
			var wait int
			fmt.Sscan(resp.Header.Get("Retry-After"), &wait)
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(max(wait, 1)) * time.Second):
			}
		}
		return limited
	}
	var idle []*http.Client
	for range idleConns {
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		send(c, "GET", "/v1/health", "", false)
		idle = append(idle, c)
	}
	// Each sending connection starts at its own point of the second a
	// refusal holds it, as clients that did not start together would.
	loop := func(method, path, body string, start time.Duration) {
		defer wg.Done()
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		defer c.CloseIdleConnections()
		select {
		case <-ctx.Done():
		case <-time.After(start):
		}
		first := true
		for ctx.Err() == nil {
			if send(c, method, path, body, true) && first {
				first = false
				refused.Done()
			}
		}
		if first {
			refused.Done()
		}
	}
	refused.Add(lookupConns + 1)
	spread := time.Second / (lookupConns + 1)
	for i := range lookupConns {
		wg.Add(1)
		go loop("GET", fmt.Sprintf("/v1/receipts/%016x", 0xf100d000+i), "", time.Duration(i)*spread)
	}
	wg.Add(1)
	go loop("POST", "/v1/run", `{"path":"hello.vel"}`, lookupConns*spread)
	stop := func() {
		cancel()
		wg.Wait()
		for _, c := range idle {
			c.CloseIdleConnections()
		}
	}
	settled := make(chan struct{})
	go func() { refused.Wait(); close(settled) }()
	select {
	case <-settled:
	case <-time.After(testkit.Bound(time.Minute)):
		stop()
		b.Fatalf("acme's flood was not refused on each of its connections within %v",
			testkit.Bound(time.Minute))
	}
	return stop
}
