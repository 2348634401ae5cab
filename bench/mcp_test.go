package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
			// n calls were made, not b.N
			b.ReportMetric(float64(t.elapsed.Nanoseconds())/float64(n), "ns/op")
		}
		b.ReportMetric(float64(t.ok.Load())/t.elapsed.Seconds(), prefix+"runs/s")
		b.ReportMetric(float64(t.p99().Microseconds())/1000, prefix+"p99-ms")
		b.ReportMetric(float64(t.failed.Load()), prefix+"failures")
		if t.failed.Load() != 0 {
			b.Errorf("%s: %d of %d calls were not a run of hello.vel that ended ok (the first: %s)",
				builds[i], t.failed.Load(), n, t.why)
		}
	}
	if len(tallies) > 1 {
		after, before := tallies[0].elapsed, tallies[1].elapsed
		b.ReportMetric(before.Seconds()/after.Seconds(), "runs/s-after/before")
	}
}

// startMCP starts bin's mcp command under the SDK's client, with an
// import root holding hello.vel and 2 workers, and closes the session,
// which ends the server, when b ends. What the server writes on its
// standard error is kept in a file, and shown when it cannot start.
func startMCP(b *testing.B, bin string) *mcp.ClientSession {
	b.Helper()
	root, rc := doorDirs(b)
	args := []string{"mcp", "--import-root", root, "--allow", "io", "--receipts", rc,
		"--workers", "2"}
	if takes(b, bin, "mcp", "--durability") {
		args = append(args, "--durability", "background")
	}
	stderr, err := os.Create(filepath.Join(b.TempDir(), "stderr"))
	if err != nil {
		b.Fatal(err)
	}
	defer stderr.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		said, _ := os.ReadFile(stderr.Name())
		b.Fatalf("%s mcp: %v; it said: %s", bin, err, said)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// callRuns makes n calls of the run tool for hello.vel, callers of them at
// once, and adds what they got to t.
func callRuns(cs *mcp.ClientSession, t *tally, n, callers int) {
	t.run(n, callers, func() (func(), func()) {
		return func() {
			// Parameters of its own for each call: calls are in flight at
			// once, and the client may mark what it sends.
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run",
				Arguments: map[string]any{"path": "hello.vel"}})
			switch {
			case err != nil:
				t.fail(err.Error())
			case !ranHello(res):
				data, _ := json.Marshal(res)
				t.fail(fmt.Sprintf("%.300s", data))
			default:
				t.ok.Add(1)
			}
		}, nil
	})
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
