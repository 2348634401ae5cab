package bench

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkMCPHello: hello.vel by path through `sabline mcp` on its
// standard input and output, under the MCP SDK's own client: 2 workers,
// serveClients calls of the run tool in flight at once on the one
// session, receipts kept in the background where the build takes
// --durability (as BenchmarkServeHello's first server keeps them). It
// reports runs/s, the 99th percentile of a call's time (p99-ms), and the
// calls that were not a run of hello.vel that ended ok (failures). Run
// it with -benchtime Nx; at most maxServeRuns calls are made. With
// SABLINE_BENCH_BEFORE set, a second server of that build takes the same
// calls, serveTurn at a time in turn with this one: its figures are
// named before-, and runs/s-after/before is this build's rate over that
// one's.
func BenchmarkMCPHello(b *testing.B) {
	builds := []string{sabline(b)}
	if before := os.Getenv(beforeEnv); before != "" {
		builds = append(builds, before)
	}
	sessions := make([]*mcp.ClientSession, len(builds))
	tallies := make([]*tally, len(builds))
	for i, bin := range builds {
		sessions[i], tallies[i] = startMCP(b, bin), &tally{}
	}
	n := min(b.N, maxServeRuns)
	b.ResetTimer()
	for sent := 0; sent < n; sent += serveTurn {
		for i, cs := range sessions {
			callRuns(cs, tallies[i], min(serveTurn, n-sent), serveClients)
		}
	}
	b.StopTimer()
	for i, t := range tallies {
		prefix := "before-"
		if i == 0 {
			prefix = ""
			b.ReportMetric(float64(t.elapsed.Nanoseconds())/float64(n), "ns/op") // n calls were made, not b.N
		}
		b.ReportMetric(float64(t.ok.Load())/t.elapsed.Seconds(), prefix+"runs/s")
		b.ReportMetric(float64(t.p99().Microseconds())/1000, prefix+"p99-ms")
		b.ReportMetric(float64(t.failed.Load()), prefix+"failures")
		if t.failed.Load() != 0 {
			b.Errorf("%s: %d of %d calls were not a run of hello.vel that ended ok: want none",
				builds[i], t.failed.Load(), n)
		}
	}
	if len(tallies) > 1 {
		b.ReportMetric(tallies[1].elapsed.Seconds()/tallies[0].elapsed.Seconds(), "runs/s-after/before")
	}
}

// startMCP starts bin's mcp command under the SDK's client, with an
// import root holding hello.vel and 2 workers, and closes the session,
// which ends the server, when b ends.
func startMCP(b *testing.B, bin string) *mcp.ClientSession {
	b.Helper()
	root, rc := doorDirs(b)
	args := []string{"mcp", "--import-root", root, "--allow", "io", "--receipts", rc, "--workers", "2"}
	if takes(b, bin, "mcp", "--durability") {
		args = append(args, "--durability", "background")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bin, args...)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// callRuns makes n calls of the run tool for hello.vel, callers of them at
// once, and adds what they got to t.
func callRuns(cs *mcp.ClientSession, t *tally, n, callers int) {
	times := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range callers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				start := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run",
					Arguments: map[string]any{"path": "hello.vel"}})
				times[i] = time.Since(start)
				if err != nil || !ranHello(res) {
					t.failed.Add(1)
					continue
				}
				t.ok.Add(1)
			}
		})
	}
	wg.Wait()
	t.elapsed += time.Since(t0)
	t.times = append(t.times, times...)
}

// ranHello reports whether res is a run of hello.vel that ended ok: no
// tool error, exit status 0, its line printed.
func ranHello(res *mcp.CallToolResult) bool {
	var out struct {
		Stdout     string `json:"stdout"`
		ExitStatus *int   `json:"exit_status"`
	}
	data, err := json.Marshal(res.StructuredContent)
	return err == nil && !res.IsError && json.Unmarshal(data, &out) == nil &&
		out.ExitStatus != nil && *out.ExitStatus == 0 && out.Stdout == "hello, world\n"
}
