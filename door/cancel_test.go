package door

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressClient is an SDK client that keeps the progress notifications
// it is sent.
type progressClient struct {
	mu   sync.Mutex
	got  []*mcp.ProgressNotificationParams
	came []time.Time   // when each of got came
	more chan struct{} // a notification came
}

func newProgressClient() (*progressClient, *mcp.Client) {
	p := &progressClient{more: make(chan struct{}, 1)}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			p.mu.Lock()
			p.got = append(p.got, req.Params)
			p.came = append(p.came, time.Now())
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		},
	})
	return p, c
}

// waitFor waits until n notifications came (bounded by the test's own
// deadline).
func (p *progressClient) waitN(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		p.mu.Lock()
		got := len(p.got)
		p.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-p.more:
		case <-deadline:
			t.Fatalf("%d progress notifications in a minute, want %d", got, n)
		}
	}
}

// check holds the notifications to their token, to rising progress, and
// to the rate: the k-th cannot have come before the call (made at called)
// had lasted k intervals, nor say it had lasted less. Both bounds hold
// however late a notification is delivered, so a loaded machine cannot
// fail them; a door sending more than one an interval does.
func (p *progressClient) check(t *testing.T, token any, called time.Time, every time.Duration) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	last := -1.0
	for i, n := range p.got {
		if n.ProgressToken != token || n.Progress <= last || !strings.HasPrefix(n.Message, "running for ") {
			t.Errorf("notification %+v: want token %v, progress above %v, a message", n, token, last)
		}
		last = n.Progress
		least := time.Duration(i+1) * every
		if said := time.Duration(n.Progress * float64(time.Second)); said < least-time.Microsecond {
			t.Errorf("notification %d says the call ran %v, want at least %v: more than one every %v",
				i+1, said, least, every)
		}
		if came := p.came[i].Sub(called); came < least {
			t.Errorf("notification %d came %v into the call, want at least %v: more than one every %v",
				i+1, came, least, every)
		}
	}
}

// holdingServer is a door whose runs last until they are cancelled, and
// that sends progress every 20 ms.
func holdingServer(t *testing.T) (*Server, *fakeRunner) {
	t.Helper()
	fake := &fakeRunner{}
	fake.hold.Store(true)
	s, err := New(Config{Runner: fake, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	s.progressEvery = 20 * time.Millisecond
	return s, fake
}

// TestCancelAndProgress: a tools/call with a progress token is told how
// long its run has lasted, at most once an interval, while it runs; when
// the client cancels the call the run ends, its cause saying the client
// cancelled it, and the run is the client's (its receipt listed). Over
// MCP sessions (notifications/cancelled) and over HTTP (the client
// closes its request). The control is a call without a token: no
// notification.
func TestCancelAndProgress(t *testing.T) {
	for _, transport := range []string{"session", "http"} {
		t.Run(transport, func(t *testing.T) {
			s, fake := holdingServer(t)
			p, client := newProgressClient()
			var cs *mcp.ClientSession
			if transport == "session" {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := s.MCP().Connect(context.Background(), st, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer ss.Close()
				cs, err = client.Connect(context.Background(), ct, nil)
				if err != nil {
					t.Fatal(err)
				}
			} else {
				ts := httptest.NewServer(s.Handler())
				defer ts.Close()
				var err error
				cs, err = client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp",
					HTTPClient: httpClientWithToken(ts), DisableStandaloneSSE: true}, nil)
				if err != nil {
					t.Fatal(err)
				}
			}
			defer cs.Close()
			ctx, cancel := context.WithCancel(context.Background())
			called := make(chan error, 1)
			callStart := time.Now()
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"source": "while True: pass"},
					Meta: mcp.Meta{"progressToken": "p1"}})
				called <- err
			}()
			p.waitN(t, 3)
			cancel()
			if err := <-called; err == nil {
				t.Error("the cancelled call returned no error")
			}
			waitFor(t, func() bool { fake.mu.Lock(); defer fake.mu.Unlock(); return len(fake.ended) == 1 })
			p.check(t, "p1", callStart, s.progressEvery)
			fake.mu.Lock()
			ended := fake.ended[0]
			fake.mu.Unlock()
			if !strings.Contains(ended.Message, errCallCancelled.Error()) {
				t.Errorf("the run ended %q, want it to say %q", ended.Message, errCallCancelled)
			}
			if ids := listed(t, cs); len(ids) != 1 || ids[0] != ended.RunID {
				t.Errorf("the client's runs %v, want the cancelled one, %s", ids, ended.RunID)
			}

			// The control: no token, no notification.
			fake.hold.Store(false)
			before := len(p.got)
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"source": "print(1)"}}); err != nil {
				t.Fatal(err)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if len(p.got) != before {
				t.Errorf("%d notifications for a call without a progress token", len(p.got)-before)
			}
		})
	}
}

// httpClientWithToken is ts's client sending the test token.
func httpClientWithToken(ts *httptest.Server) *http.Client {
	c := *ts.Client()
	c.Transport = withToken(testToken)
	return &c
}

// TestCancelOverHTTPByNotification: /mcp keeps no session, so a client's
// notifications/cancelled comes in a request of its own while its
// tools/call's request is still open (the TypeScript SDK's way): it ends
// the run of the call it names. The control is a cancel naming another
// id, which ends nothing.
func TestCancelOverHTTPByNotification(t *testing.T) {
	s, fake := holdingServer(t)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	post := mcpPoster(t, ts)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	call := post(ctx, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run","arguments":{"source":"while True: pass"},"_meta":{"progressToken":1}}}`)
	defer call.Body.Close()
	// The call's stream says progress: the run has begun.
	buf := make([]byte, 4096)
	for seen := ""; !strings.Contains(seen, "notifications/progress"); {
		n, err := call.Body.Read(buf)
		if err != nil {
			t.Fatalf("the call's stream ended before any progress: %v (%q)", err, seen)
		}
		seen += string(buf[:n])
	}
	ended := func() int { fake.mu.Lock(); defer fake.mu.Unlock(); return len(fake.ended) }
	for _, tt := range []struct {
		id        string
		wantEnded int
	}{{"8", 0}, {"7", 1}} {
		resp := post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+tt.id+`,"reason":"enough"}}`)
		resp.Body.Close()
		if tt.wantEnded == 0 {
			if got := ended(); got != 0 {
				t.Fatalf("a cancel naming id %s ended %d runs, want none", tt.id, got)
			}
			continue
		}
		waitFor(t, func() bool { return ended() == 1 })
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if !strings.Contains(fake.ended[0].Message, errCallCancelled.Error()) {
		t.Errorf("the run ended %q, want it to say %q", fake.ended[0].Message, errCallCancelled)
	}
}

// TestCancelOverHTTPReachesEveryCallOfItsID: two tools/call requests of
// one client in flight under one id (clients that share a token share
// its ids) are each ended by a cancel naming it, however the other ended
// before: before, the second call's cancel replaced the first's, and the
// first call's end forgot it, so the cancel ended nothing and the run
// lasted to its timeout. The control is a call under another id, which
// the cancel leaves running.
func TestCancelOverHTTPReachesEveryCallOfItsID(t *testing.T) {
	fake := &fakeRunner{start: make(chan struct{}, 8)}
	fake.hold.Store(true)
	s, err := New(Config{Runner: fake, Token: testToken, Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	post := func(ctx context.Context, body string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp",
			strings.NewReader(body))
		req.Header.Set("Authorization", bearer)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if resp, err := ts.Client().Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	var calls sync.WaitGroup
	defer calls.Wait()
	call := func(id string) context.CancelFunc {
		ctx, stop := context.WithCancel(context.Background())
		calls.Add(1)
		go func() {
			defer calls.Done()
			post(ctx, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"run",`+
				`"arguments":{"source":"while True: pass"}}}`)
		}()
		<-fake.start // its run has begun
		return stop
	}
	cancel := func(id string) {
		post(context.Background(), `{"jsonrpc":"2.0","method":"notifications/cancelled",`+
			`"params":{"requestId":`+id+`,"reason":"enough"}}`)
	}
	ended := func() []RunReply {
		fake.mu.Lock()
		defer fake.mu.Unlock()
		return slices.Clone(fake.ended)
	}
	other := call("9") // the control
	defer other()
	first := call("5")
	defer first()
	second := call("5")
	defer second()
	first() // the client closes the first call's request
	waitFor(t, func() bool { return len(ended()) == 1 })
	cancel("5")
	waitFor(t, func() bool { return len(ended()) == 2 })
	if got := ended()[1].Message; !strings.Contains(got, errCallCancelled.Error()) {
		t.Errorf("the second call of id 5 ended %q, want it to say %q", got, errCallCancelled)
	}
	third, fourth := call("6"), call("6")
	defer third()
	defer fourth()
	cancel("6")
	waitFor(t, func() bool { return len(ended()) == 4 })
	for _, r := range ended()[2:] {
		if !strings.Contains(r.Message, errCallCancelled.Error()) {
			t.Errorf("a call of id 6 ended %q, want it to say %q", r.Message, errCallCancelled)
		}
	}
	if n := len(ended()); n != 4 {
		t.Errorf("%d runs ended, want 4: the call of id 9 was ended by a cancel of another id", n)
	}
	other()
	waitFor(t, func() bool { return len(ended()) == 5 })
}

// mcpPoster is a function that posts one JSON-RPC message to ts's /mcp
// with the test's token, under ctx, and returns the response unread.
func mcpPoster(t *testing.T, ts *httptest.Server) func(context.Context, string) *http.Response {
	return func(ctx context.Context, body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/mcp",
			strings.NewReader(body))
		req.Header.Set("Authorization", bearer)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
}
