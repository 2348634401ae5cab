package doorcmd

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/receipt"
)

// loopAt is a program whose loop, on its lines 2 and 3, runs until it is
// stopped.
const loopAt = "x = 0\nwhile True:\n    x = 1\n"

// stopBound is how long after its cancel a run over sabline mcp may take to
// be listed: its worker answers the stop at once, or is killed after
// 500ms, and the rest is the receipt and the round trips, on a loaded
// machine. Before, a stopped pool worker was awaited 2s more.
const stopBound = time.Second

// mcpStdioWith starts sabline mcp with the receipts directory rc and the
// extra arguments, and connects client to it over its standard streams.
func mcpStdioWith(t *testing.T, client *mcp.Client, rc string, extra ...string) *mcp.ClientSession {
	t.Helper()
	args := append([]string{"mcp", "--import-root", t.TempDir(), "--allow", "io", "--receipts", rc,
		"--workers", "1"}, extra...)
	cs, err := client.Connect(context.Background(),
		&mcp.CommandTransport{Command: exec.Command(sablineBin(t), args...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listedRuns is the ids of the runs the client's resources list.
func listedRuns(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range res.Resources {
		ids = append(ids, strings.TrimPrefix(r.URI, door.ReceiptURIPrefix))
	}
	return ids
}

// wantStopped checks a stopped run's receipt: E307, saying msg, at the
// loop of loopAt, its wall time within stopBound of when it was stopped
// (after its call began).
func wantStopped(t *testing.T, rec *receipt.Receipt, msg string, after time.Duration) {
	t.Helper()
	o := rec.Outcome
	if o.Code != "E307" || !strings.Contains(o.Message, msg) {
		t.Errorf("outcome %s %q, want E307 saying %q", o.Code, o.Message, msg)
	}
	if !regexp.MustCompile(`:[23]:[0-9]+$`).MatchString(o.Position) {
		t.Errorf("position %q, want the loop's, line 2 or 3", o.Position)
	}
	if wall := time.Duration(rec.Timings.WallMS * float64(time.Millisecond)); wall > after+stopBound {
		t.Errorf("wall_ms %v, want at most %v: stopped at %v", rec.Timings.WallMS, after+stopBound, after)
	}
}

// TestMCPStopIsPrompt: over sabline mcp's standard streams, a run the
// client cancels, once it has been told the run lasted a second, is
// listed in resources/list within stopBound of the cancel, E307 at the
// loop's line; a run past the door's timeout is listed at once, when its
// call returns.
func TestMCPStopIsPrompt(t *testing.T) {
	t.Run("cancel", func(t *testing.T) {
		p, client := newProgressSeen()
		cs := mcpStdioWith(t, client, t.TempDir())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		called := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run",
				Arguments: map[string]any{"source": loopAt}, Meta: mcp.Meta{"progressToken": "stop-1"}})
			called <- err
		}()
		p.waitN(t, 1)
		at := time.Now()
		cancel()
		if err := <-called; err == nil {
			t.Error("the cancelled call returned no error")
		}
		var ids []string
		for ids = listedRuns(t, cs); len(ids) == 0 && time.Since(at) < time.Minute; ids = listedRuns(t, cs) {
		}
		listed := time.Since(at)
		if len(ids) != 1 {
			t.Fatalf("runs %v a minute after the cancel, want the cancelled one", ids)
		}
		if listed > stopBound {
			t.Errorf("the cancelled run was listed %v after its cancel, want within %v", listed, stopBound)
		}
		rec, err := readReceipt(cs, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		wantStopped(t, rec, "the client cancelled the tools/call", at.Sub(start))
		t.Logf("listed %v after the cancel: %s at %s, wall_ms %v", listed.Round(time.Millisecond),
			rec.Outcome.Code, rec.Outcome.Position, rec.Timings.WallMS)
	})
	t.Run("timeout", func(t *testing.T) {
		_, client := newProgressSeen()
		cs := mcpStdioWith(t, client, t.TempDir(), "--timeout", "1s")
		start := time.Now()
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run",
			Arguments: map[string]any{"source": loopAt}}); err != nil {
			t.Fatal(err)
		}
		returned := time.Since(start)
		ids := listedRuns(t, cs)
		if len(ids) != 1 {
			t.Fatalf("runs %v once the call returned, want the stopped one", ids)
		}
		if returned > time.Second+stopBound {
			t.Errorf("the call returned after %v, want within %v of its 1s timeout", returned, stopBound)
		}
		rec, err := readReceipt(cs, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		wantStopped(t, rec, "timeout 1s", time.Second)
		t.Logf("returned after %v: %s at %s, wall_ms %v", returned.Round(time.Millisecond),
			rec.Outcome.Code, rec.Outcome.Position, rec.Timings.WallMS)
	})
}
