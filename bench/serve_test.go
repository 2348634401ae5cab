package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit/buildbin"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// maxServeRuns bounds the runs one BenchmarkServeHello or
// BenchmarkMCPHello asks for, whatever b.N is.
const maxServeRuns = 2000

// serveClients is how many requests are in flight at once: clients of
// the HTTP door, each on a keep-alive connection of its own, or calls on
// the MCP door's one session; burstClients, more than the workers and
// the queue together, are the burst's.
const (
	serveClients = 4
	burstClients = 32
)

// serveTurn is how many requests one server takes before the other's
// turn, when BenchmarkServeHello or BenchmarkMCPHello sets two builds
// side by side.
const serveTurn = 100

// receiptsParentEnv, when set, names the directory the server's receipts
// directory is made in (/dev/shm, to see what the receipts' file system
// costs); by default it is in the benchmark's temporary directory.
const receiptsParentEnv = "SABLINE_BENCH_RECEIPTS"

// served is a sabline serve a benchmark started on loopback.
type served struct {
	url  string // of /v1/run
	auth string // the Authorization header
	rc   string // the receipts directory
	pid  int    // the server's process
}

// startServe starts sabline serve with an import root holding hello.vel,
// 2 workers, the queue given and the extra flags, and stops it when b
// ends. Without --tenants among the extra flags, auth is its token's.
func startServe(b *testing.B, bin, queue string, extra ...string) *served {
	b.Helper()
	root, rc := doorDirs(b)
	s := listening(b, exec.Command(bin, append([]string{"serve", "--import-root", root,
		"--allow", "io", "--listen", "127.0.0.1:0", "--receipts", rc, "--workers", "2",
		"--queue", queue}, extra...)...))
	s.rc = rc
	if slices.Contains(extra, "--tenants") {
		return s
	}
	tok, err := os.ReadFile(filepath.Join(rc, "serve.token"))
	if err != nil {
		b.Fatal(err)
	}
	s.auth = "Bearer " + strings.TrimSpace(string(tok))
	return s
}

// startRelay starts bench/internal/barerelay, the door's process model
// and nothing of Sabline's, and stops it when b ends. It keeps no
// receipts (rc is "").
func startRelay(b *testing.B) *served {
	b.Helper()
	bin, err := buildbin.Build("github.com/sabline/sabline/bench/internal/barerelay", "barerelay")
	if err != nil {
		b.Fatal(err)
	}
	const token = "relay"
	s := listening(b, exec.Command(bin, token))
	s.auth = "Bearer " + token
	return s
}

// listening starts cmd, a server that says "listening on ADDRESS" on
// standard error, and stops it when b ends: url is its /v1/run, pid its
// process.
func listening(b *testing.B, cmd *exec.Cmd) *served {
	b.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	s := &served{pid: cmd.Process.Pid}
	for s.url == "" && sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
			addr, _, _ := strings.Cut(rest, " ")
			s.url = "http://" + addr + "/v1/run"
		}
	}
	if s.url == "" {
		b.Fatalf("%s did not say where it listens", filepath.Base(cmd.Path))
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return s
}

// doorDirs makes a door's import root, holding hello.vel, and the path of
// its receipts directory (beneath receiptsParentEnv when it is set).
func doorDirs(b *testing.B) (root, rc string) {
	b.Helper()
	dir := b.TempDir()
	root, rc = filepath.Join(dir, "root"), filepath.Join(dir, "receipts")
	if parent := os.Getenv(receiptsParentEnv); parent != "" {
		d, err := os.MkdirTemp(parent, "sabline-bench-receipts-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(d) })
		rc = filepath.Join(d, "receipts")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	hello := []byte("print(\"hello, world\")\n")
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), hello, 0o644); err != nil {
		b.Fatal(err)
	}
	return root, rc
}

// receipts counts the receipts in the receipts directory: its files and
// its journal's records.
func (s *served) receipts(b *testing.B) int {
	runs, err := receipt.List(s.rc)
	if err != nil {
		b.Fatal(err)
	}
	return len(runs)
}

// tally is what n requests from clients at once got.
type tally struct {
	ok, busy, failed, noRetryAfter atomic.Int64
	times                          []time.Duration
	elapsed                        time.Duration

	mu  sync.Mutex
	why string // what the first request that failed got
}

// fail counts a request that failed, and keeps what the first got.
func (t *tally) fail(why string) {
	t.failed.Add(1)
	t.mu.Lock()
	if t.why == "" {
		t.why = why
	}
	t.mu.Unlock()
}

// run makes n requests from clients goroutines at once and adds each
// one's time, and the time they all took, to t. Each goroutine makes its
// requests with the function client returns to it, which counts in t
// what each got, and calls done, when not nil, after its last.
func (t *tally) run(n, clients int, client func() (request, done func())) {
	times := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range clients {
		wg.Go(func() {
			request, done := client()
			if done != nil {
				defer done()
			}
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				start := time.Now()
				request()
				times[i] = time.Since(start)
			}
		})
	}
	wg.Wait()
	t.elapsed += time.Since(t0)
	t.times = append(t.times, times...)
}

// load sends n requests for hello.vel from clients at once, each on a
// keep-alive connection of its own, and adds what they got to t.
func (s *served) load(t *tally, n, clients int) {
	t.run(n, clients, func() (func(), func()) {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		return func() {
			req, _ := http.NewRequest("POST", s.url, strings.NewReader(`{"path":"hello.vel"}`))
			req.Header.Set("Authorization", s.auth)
			resp, err := client.Do(req)
			if err != nil {
				t.fail(err.Error())
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == 200 && strings.Contains(string(body), `"status":"ok"`):
				t.ok.Add(1)
			case resp.StatusCode == 429:
				t.busy.Add(1)
				if resp.Header.Get("Retry-After") == "" {
					t.noRetryAfter.Add(1)
				}
			default:
				t.fail(fmt.Sprintf("%s: %.200s", resp.Status, body))
			}
		}, client.CloseIdleConnections
	})
}

func (t *tally) p99() time.Duration {
	slices.Sort(t.times)
	return t.times[min(len(t.times)-1, len(t.times)*99/100)]
}

// BenchmarkServeHello: hello.vel by path through sabline serve on
// loopback (2 workers, a queue of 64), from serveClients keep-alive
// clients at once. It reports runs/s, the 99th percentile of a request's
// time, the requests that were not a run that ended ok (failures), and
// the runs that ended ok without a receipt file (lost-receipts; the
// receipts directory holds one file per run). Run it with -benchtime Nx;
// at most maxServeRuns are sent. With SABLINE_BENCH_BEFORE set, a second
// server of that build takes the same requests, serveTurn at a time in
// turn with this one: its figures are named before-, and
// runs/s-after/before is this build's rate over that one's. This build's
// server keeps receipts with --durability background, as every build
// before the setting kept them (and so does the twin, when its serve
// takes the setting); a third, named flush-, keeps them with
// the default, flushed before each reply, in the same turns
// (runs/s-flush/background is its rate over the first server's). A
// last, named floor-, is bench/internal/barerelay: the door's process
// model (loopback HTTP, two child processes behind pipes, a reply of the
// door's size) and nothing of Sabline's; runs/s-door/floor is the first
// server's rate over its.
// On Linux it reports the processor time a run cost each server
// (server-cpu-µs/run) and its two workers or children
// (workers-cpu-µs/run), and their threads' context switches a run
// (server-switches/run, workers-switches/run), read from /proc, with the
// server's prefix.
func BenchmarkServeHello(b *testing.B) {
	type server struct {
		bin, prefix string
		extra       []string
		relay       bool // barerelay, bin unused: it keeps no receipts
	}
	background := []string{"--durability", "background"}
	builds := []server{{bin: sabline(b), extra: background},
		{bin: sabline(b), prefix: "flush-"}}
	twin := -1
	if before := os.Getenv(beforeEnv); before != "" {
		// A build that has the setting keeps its receipts as this one's
		// first server does; one before it kept them so.
		t := server{bin: before, prefix: "before-"}
		if takes(b, before, "serve", background[0]) {
			t.extra = background
		}
		twin, builds = len(builds), append(builds, t)
	}
	floor := len(builds)
	builds = append(builds, server{prefix: "floor-", relay: true})
	servers := make([]*served, len(builds))
	tallies := make([]*tally, len(builds))
	had := make([]int, len(builds))
	for i, s := range builds {
		tallies[i] = &tally{}
		if s.relay {
			servers[i] = startRelay(b)
			continue
		}
		servers[i] = startServe(b, s.bin, "64", s.extra...)
		had[i] = servers[i].receipts(b)
	}
	n := min(b.N, maxServeRuns)
	costs := make([]serverCost, len(servers))
	for i, s := range servers {
		costs[i] = costOf(s.pid)
	}
	b.ResetTimer()
	for sent := 0; sent < n; sent += serveTurn {
		for i, s := range servers {
			s.load(tallies[i], min(serveTurn, n-sent), serveClients)
		}
	}
	b.StopTimer()
	for i, t := range tallies {
		prefix := builds[i].prefix
		if i == 0 {
			b.ReportMetric(float64(t.elapsed.Nanoseconds())/float64(n), "ns/op") // n requests were sent, not b.N
		}
		var lost int64
		if !builds[i].relay {
			lost = t.ok.Load() - int64(servers[i].receipts(b)-had[i])
			b.ReportMetric(float64(lost), prefix+"lost-receipts")
		}
		b.ReportMetric(float64(t.ok.Load())/t.elapsed.Seconds(), prefix+"runs/s")
		b.ReportMetric(float64(t.p99().Microseconds())/1000, prefix+"p99-ms")
		b.ReportMetric(float64(t.failed.Load()+t.busy.Load()), prefix+"failures")
		if t.failed.Load()+t.busy.Load() != 0 || lost != 0 {
			who := builds[i].bin
			if builds[i].relay {
				who = "barerelay"
			}
			b.Errorf("%s %q: %d failed (the first: %s), %d busy, %d runs without a receipt: "+
				"want none", who, builds[i].extra, t.failed.Load(), t.why, t.busy.Load(), lost)
		}
		costs[i].report(b, n, prefix)
	}
	serveRatios(b, tallies, twin, floor)
}

// serveRatios reports BenchmarkServeHello's ratios of runs a second, each
// A/B the runs/s of A over B's (as each server's own runs/s is reported):
// runs/s-flush/background, the flush server's (tallies[1]) over the first
// server's, which keeps receipts in the background; runs/s-after/before,
// the first server's over the twin's, when there is one (twin >= 0); and
// runs/s-door/floor, the first server's over the floor's.
func serveRatios(b *testing.B, tallies []*tally, twin, floor int) {
	rate := func(i int) float64 { return float64(tallies[i].ok.Load()) / tallies[i].elapsed.Seconds() }
	b.ReportMetric(rate(1)/rate(0), "runs/s-flush/background")
	if twin >= 0 {
		b.ReportMetric(rate(0)/rate(twin), "runs/s-after/before")
	}
	b.ReportMetric(rate(0)/rate(floor), "runs/s-door/floor")
}

// serverCost is the processor time a server and its two workers had used,
// and the context switches their threads had made, when it was taken
// (costOf), where /proc says (ok).
type serverCost struct {
	pid                          int
	workers                      []int
	serverTicks, workTicks       int64
	serverSwitches, workSwitches int64
	ok                           bool
}

// costOf takes the processor time the server pid and its workers have
// used: workers started before the clock (a serve starts its workers
// before it listens).
func costOf(pid int) serverCost {
	c := serverCost{pid: pid, workers: proc.Workers(pid)}
	var serverOK, workersOK bool
	c.serverTicks, serverOK = cpuTicks(c.pid)
	c.workTicks, workersOK = cpuTicks(c.workers...)
	var serverSwOK, workersSwOK bool
	c.serverSwitches, serverSwOK = switches(c.pid)
	c.workSwitches, workersSwOK = switches(c.workers...)
	c.ok = serverOK && workersOK && serverSwOK && workersSwOK && len(c.workers) == 2
	return c
}

// report reports, named with prefix, the processor time a run of the n
// sent since c was taken cost the server (server-cpu-µs/run) and its
// workers (workers-cpu-µs/run), which must be the same two, and the
// context switches it cost each (server-switches/run,
// workers-switches/run).
func (c serverCost) report(b *testing.B, n int, prefix string) {
	if !c.ok {
		return
	}
	now := costOf(c.pid)
	if !slices.Equal(now.workers, c.workers) {
		b.Errorf("server %d's workers were %v before the clock and %v after it: want the same two",
			c.pid, c.workers, now.workers)
		return
	}
	perRun := func(ticks int64) float64 { return float64(ticks) * 1e4 / float64(n) }
	b.ReportMetric(perRun(now.serverTicks-c.serverTicks), prefix+"server-cpu-µs/run")
	b.ReportMetric(perRun(now.workTicks-c.workTicks), prefix+"workers-cpu-µs/run")
	b.ReportMetric(float64(now.serverSwitches-c.serverSwitches)/float64(n),
		prefix+"server-switches/run")
	b.ReportMetric(float64(now.workSwitches-c.workSwitches)/float64(n),
		prefix+"workers-switches/run")
}

// switches is the context switches the threads of the processes pids
// have made, together; false where it cannot be read
// (proc.ContextSwitches).
func switches(pids ...int) (int64, bool) { return summed(proc.ContextSwitches, pids...) }

// cpuTicks is the clock ticks of processor time (10 ms each) the
// processes pids have used, together; false where it cannot be read
// (proc.CPUTicks).
func cpuTicks(pids ...int) (int64, bool) { return summed(proc.CPUTicks, pids...) }

// summed is what read reads of each of the processes pids, added; false
// where any cannot be read, and where there is none to read: a sum of no
// process is no figure (an idle pool's 0 ticks, say, when it had no
// worker to read).
func summed(read func(pid int) (int64, error), pids ...int) (int64, bool) {
	if len(pids) == 0 {
		return 0, false
	}
	var n int64
	for _, pid := range pids {
		v, err := read(pid)
		if err != nil {
			return 0, false
		}
		n += v
	}
	return n, true
}

// takes reports whether bin's command names flag in its usage.
func takes(b *testing.B, bin, command, flag string) bool {
	b.Helper()
	out, _ := exec.Command(bin, command, "--help").CombinedOutput()
	return bytes.Contains(out, []byte(flag+" "))
}

// BenchmarkServeBurst: burstClients clients at once against 2 workers
// and a queue of 4: what finds the workers and the queue full is 429,
// with Retry-After, and leaves no receipt; every 200 has its receipt
// file. It reports the 200s (ok-runs), the share of 429s (busy-%), 429s
// without Retry-After, other failures, and receipt files minus 200s (a
// lost receipt counts below zero, a 429 that made one above).
func BenchmarkServeBurst(b *testing.B) {
	s := startServe(b, sabline(b), "4")
	n := min(b.N, maxServeRuns)
	before := s.receipts(b)
	b.ResetTimer()
	t := &tally{}
	s.load(t, n, burstClients)
	b.StopTimer()
	b.ReportMetric(float64(t.elapsed.Nanoseconds())/float64(n), "ns/op") // n requests were sent, not b.N
	lost := int64(s.receipts(b)-before) - t.ok.Load()
	b.ReportMetric(float64(t.ok.Load()), "ok-runs")
	b.ReportMetric(100*float64(t.busy.Load())/float64(n), "busy-%")
	b.ReportMetric(float64(t.noRetryAfter.Load()), "no-retry-after")
	b.ReportMetric(float64(t.failed.Load()), "failures")
	b.ReportMetric(float64(lost), "receipts-minus-200s")
	if t.failed.Load() != 0 || t.noRetryAfter.Load() != 0 || lost != 0 {
		b.Errorf("%d failed, %d 429s without Retry-After, receipts minus 200s %d: want none", t.failed.Load(), t.noRetryAfter.Load(), lost)
	}
}
