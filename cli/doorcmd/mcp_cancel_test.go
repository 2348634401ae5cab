package doorcmd

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/receipt"
)

// spin is a program that runs until it is stopped.
const spin = "def spin():\n    while True:\n        pass\nspin()\n"

// mcpStdio starts sabline mcp with the receipts directory rc and connects
// the SDK's client to it over its standard input and output.
func mcpStdio(t *testing.T, client *mcp.Client, rc string) *mcp.ClientSession {
	t.Helper()
	root := t.TempDir()
	cmd := exec.Command(sablineBin(t), "mcp", "--import-root", root, "--allow", "io", "--receipts", rc, "--workers", "1")
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// progressSeen keeps the progress notifications a client is sent.
type progressSeen struct {
	mu   sync.Mutex
	got  []*mcp.ProgressNotificationParams
	more chan struct{}
}

func newProgressSeen() (*progressSeen, *mcp.Client) {
	p := &progressSeen{more: make(chan struct{}, 1)}
	return p, mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			p.mu.Lock()
			p.got = append(p.got, req.Params)
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		},
	})
}

func (p *progressSeen) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.got)
}

// waitN waits for n notifications, at most a minute.
func (p *progressSeen) waitN(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(time.Minute)
	for p.count() < n {
		select {
		case <-p.more:
		case <-deadline:
			t.Fatalf("%d progress notifications in a minute, want %d", p.count(), n)
		}
	}
}

// readReceipt reads a run's receipt as the client's resource.
func readReceipt(cs *mcp.ClientSession, id string) (*receipt.Receipt, error) {
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: door.ReceiptURIPrefix + id})
	if err != nil {
		return nil, err
	}
	var rec receipt.Receipt
	if len(res.Contents) != 1 {
		return nil, os.ErrNotExist
	}
	return &rec, json.Unmarshal([]byte(res.Contents[0].Text), &rec)
}

// newestRun waits until the client's resources list a run and returns the
// newest one's id.
func newestRun(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		res, err := cs.ListResources(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Resources) > 0 {
			return strings.TrimPrefix(res.Resources[0].URI, door.ReceiptURIPrefix)
		}
	}
	t.Fatal("no run listed in a minute")
	return ""
}

// TestMCPCancelAndProgress: the official Go SDK's client calls run with a
// progress token on a program that never ends, over sabline mcp's
// standard input and output and over sabline serve's /mcp; it is told how
// long the run has lasted, at most once a second; it cancels the call; the
// run stops, E307, its receipt saying the client cancelled it, and the
// client reads that receipt as its resource. A second sabline mcp writing
// to the same receipts directory cannot read it: it is another client.
func TestMCPCancelAndProgress(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			rc := t.TempDir()
			p, client := newProgressSeen()
			var cs *mcp.ClientSession
			if transport == "stdio" {
				cs = mcpStdio(t, client, rc)
			} else {
				s := startServe(t)
				rc = s.rc
				var err error
				cs, err = client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp",
					HTTPClient: &http.Client{Transport: bearerTransport{s.token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
			}
			ctx, cancel := context.WithCancel(context.Background())
			called := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"source": spin},
					Meta: mcp.Meta{"progressToken": "spin-1"}})
				called <- err
			}()
			p.waitN(t, 2)
			cancel()
			if err := <-called; err == nil {
				t.Error("the cancelled call returned no error")
			}
			if most := int(time.Since(start)/door.ProgressInterval) + 1; p.count() > most {
				t.Errorf("%d notifications in %v: more than one a second", p.count(), time.Since(start))
			}
			last := 0.0
			for _, n := range p.got {
				if n.ProgressToken != "spin-1" || n.Progress <= last {
					t.Errorf("notification %+v: want token spin-1, progress rising", n)
				}
				last = n.Progress
			}
			id := newestRun(t, cs)
			rec, err := readReceipt(cs, id)
			if err != nil {
				t.Fatal(err)
			}
			o := rec.Outcome
			if o.Code != "E307" || o.Status != receipt.StatusTimeout || !strings.Contains(o.Message, "the client cancelled the tools/call") {
				t.Errorf("the cancelled run's receipt: %+v, want E307, timeout, saying the client cancelled it", o)
			}
			if doc := docCancelMessage(t); o.Message != doc {
				t.Errorf("the cancelled run's message %q; docs/mcp.md quotes %q", o.Message, doc)
			}
			if stored, err := receipt.FindRun(rc, id); err != nil || stored.Outcome.Code != "E307" {
				t.Errorf("the store's receipt of %s: %v, %v", id, stored.Receipt, err)
			}
			t.Logf("%d progress notifications (%s), then cancelled: receipt %s, %s %s: %s", p.count(), p.got[len(p.got)-1].Message, id, o.Status, o.Code, o.Message)

			_, other := newProgressSeen()
			if _, err := readReceipt(mcpStdio(t, other, rc), id); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Errorf("another client reading %s, in the same store: %v, want not found", id, err)
			}
		})
	}
}

// docCancelMessage is the message docs/mcp.md says a cancelled run ends
// with: the quoted text after "with the message".
func docCancelMessage(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(data)), " ")
	quoted := regexp.MustCompile(`ends ` + "`E307`" + ` with the message "([^"]+)"`)
	m := quoted.FindStringSubmatch(text)
	if m == nil {
		t.Fatal(`docs/mcp.md no longer says: ends E307 with the message "..."`)
	}
	return m[1]
}
