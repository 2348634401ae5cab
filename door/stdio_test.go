package door

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/testkit"
)

const (
	initLine        = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// TestStreamBadLines: each line that is not a JSON-RPC message is
// answered with an error of a JSON-RPC code (the line's id when it has
// one, else null) and the server reads on: the request after every one of
// them is answered. A request the server refuses before the session is
// initialized gets -32600, not 0. The control is the same request after
// initialize, answered with a result.
func TestStreamBadLines(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		wantID   any // float64, string or nil
		wantCode float64
	}{
		{name: "not JSON", line: `hello`, wantCode: -32700},
		{name: "cut short", line: `{"jsonrpc":"2.0","id":7,"method":"ping"`, wantCode: -32700},
		{name: "a batch", line: `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, wantCode: -32600},
		{name: "no version", line: `{"id":9,"method":"ping"}`, wantID: float64(9), wantCode: -32600},
		{name: "a number", line: `42`, wantCode: -32600},
		{name: "too long", line: `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":"` + strings.Repeat("a", maxLineBytes) + `"}}`, wantCode: -32600},
		{name: "before initialize", line: `{"jsonrpc":"2.0","id":11,"method":"tools/list"}`, wantID: float64(11), wantCode: -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Runner: &fakeRunner{}})
			if err != nil {
				t.Fatal(err)
			}
			in := strings.Join([]string{tt.line, initLine, initializedLine, `{"jsonrpc":"2.0","id":"after","method":"tools/list"}`}, "\n") + "\n"
			var out strings.Builder
			_ = s.MCP().Run(context.Background(), StreamTransport(strings.NewReader(in), &out))
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 3 {
				t.Fatalf("%d answers, want 3 (the error, initialize, tools/list):\n%.2000s", len(lines), out.String())
			}
			var first struct {
				Version string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    float64 `json:"code"`
					Message string  `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
				t.Fatalf("first answer %q: %v", lines[0], err)
			}
			var id any
			_ = json.Unmarshal(first.ID, &id)
			if first.Version != "2.0" || first.ID == nil || id != tt.wantID || first.Error.Code != tt.wantCode || first.Error.Message == "" {
				t.Errorf("answer %s: want jsonrpc 2.0, id %v, code %v and a message", lines[0], tt.wantID, tt.wantCode)
			}
			if !strings.Contains(lines[2], `"id":"after","result":{`) || !strings.Contains(lines[2], `"name":"run"`) {
				t.Errorf("the request after the bad line: %.300s, want its result", lines[2])
			}
		})
	}
}

// FuzzDecodeLine: whatever a line holds, decodeLine returns a message or
// an error answer with a JSON-RPC code, never both, never neither, and
// never panics.
func FuzzDecodeLine(f *testing.F) {
	for _, seed := range []string{initLine, initializedLine, `hello`, `[]`, `{"id":1}`, `{"jsonrpc":"2.0","id":{},"method":"x"}`, `null`, ``, "\x00"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) > 1<<16 {
			return
		}
		msg, refusal := decodeLine(lineOrErr{line: line})
		if (msg == nil) == (refusal == nil) {
			t.Fatalf("decodeLine(%q) = %v, %v: want exactly one", line, msg, refusal)
		}
		if refusal != nil {
			data, err := encode(refusal)
			if err != nil || !json.Valid(data) || !strings.Contains(string(data), `"code":-32`) {
				t.Fatalf("the answer to %q: %s, %v", line, data, err)
			}
		}
	})
}

// TestMCPHTTPErrors: on /mcp, a body that is not JSON, and each refusal
// of the transport the SDK answers in plain text, is a JSON-RPC error
// with its HTTP status; an error the SDK answers without a code goes out
// with -32600. The control is a ping, answered with its result.
func TestMCPHTTPErrors(t *testing.T) {
	_, ts := newTestServer(t, Config{Runner: &fakeRunner{}})
	tests := []struct {
		name, method, ctype, body string
		wantStatus                int
		wantCode                  float64 // 0: a result
	}{
		{name: "a ping", method: "POST", ctype: "application/json", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, wantStatus: 200},
		{name: "not JSON", method: "POST", ctype: "application/json", body: `hello`, wantStatus: 400, wantCode: -32700},
		{name: "another media type", method: "POST", ctype: "text/plain", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, wantStatus: 415, wantCode: -32600},
		{name: "another method", method: "GET", wantStatus: 405, wantCode: -32600},
		{name: "initialize with params of no shape", method: "POST", ctype: "application/json",
			body: `{"jsonrpc":"2.0","id":"x","method":"initialize","params":5}`, wantStatus: 200, wantCode: -32600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.URL+"/mcp", strings.NewReader(tt.body))
			req.Header.Set("Authorization", bearer)
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var msg struct {
				Version string          `json:"jsonrpc"`
				Result  json.RawMessage `json:"result"`
				Error   *struct {
					Code    float64 `json:"code"`
					Message string  `json:"message"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
				t.Fatalf("status %d, %s: the body is not JSON: %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
			}
			code := 0.0
			if msg.Error != nil {
				code = msg.Error.Code
			}
			if resp.StatusCode != tt.wantStatus || msg.Version != "2.0" || code != tt.wantCode || (code == 0) != (msg.Result != nil) {
				t.Errorf("status %d, message %+v: want %d, JSON-RPC code %v", resp.StatusCode, msg, tt.wantStatus, tt.wantCode)
			}
		})
	}
}

// streamPeer is a client of a StreamTransport over pipes: what it writes
// is the server's input, and the server's answers are read, line by line,
// into lines.
type streamPeer struct {
	in    *io.PipeWriter
	lines chan string
	done  chan error     // Run's end
	conns chan *lineConn // the connection, once made
	conn  *lineConn
}

// capture is a StreamTransport that hands its connection to conns, for
// a test to read its counts.
type capture struct {
	mcp.Transport
	conns chan *lineConn
}

func (c capture) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.Transport.Connect(ctx)
	if lc, ok := conn.(*lineConn); ok {
		c.conns <- lc
	}
	return conn, err
}

func newStreamPeer(t *testing.T, s *Server, read bool) (*streamPeer, *io.PipeReader) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &streamPeer{in: inW, lines: make(chan string, 1<<12), done: make(chan error, 1),
		conns: make(chan *lineConn, 1)}
	go func() {
		p.done <- s.MCP().Run(context.Background(), capture{StreamTransport(inR, outW), p.conns})
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	if read {
		go p.readAll(outR)
	}
	return p, outR
}

// initializedUnread is a peer of s whose answers the test reads itself,
// through the scanner returned (lines of up to max bytes), once it has
// been initialized: the initialize answer read, the initialized
// notification sent.
func initializedUnread(t *testing.T, s *Server, max int) (*streamPeer, *bufio.Scanner) {
	t.Helper()
	p, out := newStreamPeer(t, s, false)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, max)
	p.send(t, initLine)
	if !sc.Scan() {
		t.Fatal("no answer to initialize")
	}
	p.send(t, initializedLine)
	return p, sc
}

// readAll reads the server's answers into p.lines until they end.
func (p *streamPeer) readAll(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		p.lines <- sc.Text()
	}
	close(p.lines)
}

func (p *streamPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatalf("send: %v", err)
	}
}

// next is the server's next answer, within a bound the machine's load
// sets.
func (p *streamPeer) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatal("the answers ended")
		}
		return l
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatal("no answer came")
	}
	return ""
}

// initialize opens the session: initialize, answered, and the
// initialized notification.
func (p *streamPeer) initialize(t *testing.T) {
	t.Helper()
	p.send(t, initLine)
	p.next(t)
	p.send(t, initializedLine)
}

// runCall is a tools/call of id running print(id).
const runCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call",` +
	`"params":{"name":"run","arguments":{"source":"print(%[1]d)"}}}`

// beginRun sends the tools/call id (runCall) and waits for runner to
// begin its run.
func (p *streamPeer) beginRun(t *testing.T, runner *fakeRunner, id int) {
	t.Helper()
	p.send(t, fmt.Sprintf(runCall, id))
	select {
	case <-runner.start:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatalf("the run of call %d did not begin", id)
	}
}

// callInFlight is a peer of a door whose runner holds each run until
// released (fakeRunner.block), with its session open and the tools/call
// 1 begun.
func callInFlight(t *testing.T) (*streamPeer, *fakeRunner) {
	t.Helper()
	runner := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 1)}
	s, err := New(Config{Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newStreamPeer(t, s, true)
	p.initialize(t)
	p.beginRun(t, runner, 1)
	return p, runner
}

// TestStreamRefusesAnIDInUse: a request whose id is that of a request
// read and not yet answered is refused at once (-32600, id null), and
// once the input ends the server answers the first and closes. Before,
// the SDK dropped the second request, answering nothing, and the count of
// requests to answer never came back to zero: sabline mcp never exited
// after its client closed its input. The control is the first request,
// answered with its result.
func TestStreamRefusesAnIDInUse(t *testing.T) {
	p, runner := callInFlight(t)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call",`+
		`"params":{"name":"run","arguments":{"source":"print(2)"}}}`)
	if l := p.next(t); !strings.Contains(l, `"id":null`) || !strings.Contains(l, `"code":-32600`) ||
		!strings.Contains(l, "not yet answered") {
		t.Fatalf("the request with the id in use: %s, want -32600 with the id null", l)
	}
	close(runner.block)
	if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result":{`) {
		t.Fatalf("the first request: %.300s, want its result", l)
	}
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatal("the server did not end with its input")
	}
	if n := runner.ran.Load(); n != 1 {
		t.Errorf("%d runs, want the first request's", n)
	}
}

// TestStreamHoldsAClientThatStopsReading: a client that stops reading
// its answers while it writes requests is read no further once
// maxPending of them, or maxPendingBytes of them, are unanswered, so
// that the server holds no more of them; every request is answered once
// the client reads again, the bytes of those answered given back (the
// control: nothing is lost, and the server reads on past either bound).
// Before, the server read every request, each held with its answer: some
// 3.5 MB for each of 1 MB, without bound. The requests of "many small"
// are runs that wait, answered only once the client reads again: pings,
// answered at once, would wait as answers, held by maxWaiting first.
func TestStreamHoldsAClientThatStopsReading(t *testing.T) {
	for _, tt := range []struct {
		name string
		line string // the request, %d its id and %q its padding
		pad  int    // each request's padding
		held int    // the requests read before the server reads no further
		past int    // the requests written past the bound
	}{
		// Each request is longer than the server's read buffer, so that
		// what it read ahead is at most a line or two.
		{name: "many small", line: paddedRun, pad: 80 << 10, held: maxPending, past: 64},
		// Fewer than maxPending (and than maxWaiting), of maxPendingBytes
		// in all.
		{name: "few large", line: paddedPing, pad: 2 << 20,
			held: maxPendingBytes/(2<<20+80) + 1, past: 8},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runner := &fakeRunner{block: make(chan struct{})}
			// A place for each run, that none is refused busy.
			s, err := New(Config{Runner: runner, Workers: maxPending + tt.past})
			if err != nil {
				t.Fatal(err)
			}
			p, sc := initializedUnread(t, s, bufio.MaxScanTokenSize)
			pad := strings.Repeat("x", tt.pad)
			total := tt.held + tt.past
			var written atomic.Int64
			go func() {
				for i := range total {
					if _, err := io.WriteString(p.in, fmt.Sprintf(tt.line, i, pad)+"\n"); err != nil {
						return
					}
					written.Add(1)
				}
			}()
			p.waitUntilHeld(t)
			if n := counted(&written, tt.held); n < int64(tt.held) || n > int64(tt.held)+2 {
				t.Fatalf("the server took %d requests of a client that reads nothing, want %d to %d",
					n, tt.held, tt.held+2)
			}
			close(runner.block)
			answered := make(chan int, 1)
			go func() {
				n := 0
				for n < total && sc.Scan() {
					n++
				}
				answered <- n
			}()
			select {
			case n := <-answered:
				if n != total {
					t.Fatalf("%d answers once the client read again, want %d", n, total)
				}
			case <-time.After(testkit.Bound(60 * time.Second)):
				t.Fatalf("the server stopped answering once the client read again: %d requests "+
					"taken of %d", written.Load(), total)
			}
		})
	}
}

// paddedPing and paddedRun are a ping and a tools/call of id %d padded
// with %q (in _meta, which the door reads and lets be).
const (
	paddedPing = `{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":%q}}}`
	paddedRun  = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run",` +
		`"arguments":{"source":"print(1)"},"_meta":{"pad":%q}}}`
)

// TestStreamHoldsAClientThatReadsNoAnswer: a client that writes requests
// and reads none of their answers is read no further once maxWaiting
// answers, or maxWaitingBytes of them, wait to be written, though each
// of its requests was answered: the server holds no more of its answers
// than these. Its first answer (a ping's) waits before its calls are
// sent: the calls read before it, as many as came before an answer was
// made, are the server's workers' and queue's to bound. Each call is
// sent once the run of the one before has begun. Once the client reads
// again, nothing holds the server to a run at a time, and on a loaded
// machine runs that began and have not yet given their places back pass
// the server's four workers: its queue holds every call, so that none is
// refused busy (a call refused never begins, and the client, which waits
// for its run to begin before it sends the next, waited for ever). Every
// request is answered once the client reads again, whole and once, and
// each run ran once (the control: nothing is lost, and the server reads
// on past either bound). Before, the server read on to maxPending
// requests, each held with its answer, which the bound on the server's
// places does not hold (a run's place is given back when its answer is
// made): 256 answers of 13.6 MB each (runs that printed 1 MiB of control
// bytes) took it to 3.5 GB, and here each request written was taken.
func TestStreamHoldsAClientThatReadsNoAnswer(t *testing.T) {
	for _, tt := range []struct {
		name    string
		stdout  int // each run's output, in bytes
		total   int // the requests written
		atLeast int // the requests taken before the server reads no further, at least
	}{
		// Small answers: fewer bytes than maxWaitingBytes; the ping's is
		// one of maxWaiting.
		{name: "many answers", stdout: 16, total: maxWaiting + 32, atLeast: maxWaiting - 1},
		// Answers of 4 MiB and a few bytes: fewer than maxWaiting.
		{name: "large answers", stdout: 2 << 20, total: 40, atLeast: maxWaitingBytes / (4 << 20)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runner := &fakeRunner{start: make(chan struct{}),
				stdout: strings.Repeat("x", tt.stdout-1) + "\n"}
			s, err := New(Config{Runner: runner, Workers: 4, Queue: tt.total})
			if err != nil {
				t.Fatal(err)
			}
			p, sc := initializedUnread(t, s, 8<<20)
			p.send(t, `{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
			p.waitUntil(t, "the ping's answer waits", func(c *lineConn) bool { return c.waiting == 1 })
			var written atomic.Int64
			go func() {
				for i := range tt.total {
					if _, err := fmt.Fprintf(p.in, runCall+"\n", i); err != nil {
						return
					}
					written.Add(1)
					<-runner.start
				}
			}()
			if !p.heldUnless(t, func() bool { return written.Load() == int64(tt.total) }) {
				t.Fatalf("the server took each of %d requests of a client that reads none of "+
					"their answers, want it to read no further past %d answers or %d bytes of "+
					"them waiting", tt.total, maxWaiting, maxWaitingBytes)
			}
			// The line after the last taken may have been read, and wait
			// for room.
			n := counted(&written, tt.atLeast)
			if n < int64(tt.atLeast) || n > int64(tt.atLeast)+2 {
				t.Fatalf("the server took %d requests of a client that reads nothing, "+
					"want %d to %d", n, tt.atLeast, tt.atLeast+2)
			}
			t.Logf("the server took %d requests of %d, then read no further", n, tt.total)
			answered := make(chan map[string]int, 1)
			go func() {
				ids := map[string]int{}
				if !sc.Scan() || !strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0","id":"ping","result":`) {
					ids["the ping's answer first: "+sc.Text()]++
				}
				for n := 0; n < tt.total && sc.Scan(); n++ {
					var a struct {
						ID     json.RawMessage `json:"id"`
						Result struct {
							Structured RunOutput `json:"structuredContent"`
						} `json:"result"`
					}
					if json.Unmarshal(sc.Bytes(), &a) != nil ||
						len(a.Result.Structured.Stdout) != tt.stdout {
						ids["not whole: "+string(sc.Bytes()[:min(200, len(sc.Bytes()))])]++
						continue
					}
					ids[string(a.ID)]++
				}
				answered <- ids
			}()
			select {
			case ids := <-answered:
				for i := range tt.total {
					if n := ids[fmt.Sprint(i)]; n != 1 {
						t.Errorf("the request %d answered %d times with its run's whole result, "+
							"want once", i, n)
					}
				}
				if len(ids) != tt.total {
					t.Errorf("answers %v, want one for each of %d requests", ids, tt.total)
				}
			case <-time.After(testkit.Bound(60 * time.Second)):
				t.Fatalf("the server stopped answering once the client read again: %d requests "+
					"taken of %d", written.Load(), tt.total)
			}
			if n := runner.ran.Load(); n != int64(tt.total) {
				t.Errorf("%d runs, want %d, one for each request", n, tt.total)
			}
		})
	}
}

// TestStreamReadsNoFurtherWhileBehind: while an answer waits to be
// written (its client reads nothing), a request is read only once each
// request read before it has its answer made: a run in flight would
// make an answer the bounds on those waiting do not yet count. A ping is
// answered and its answer waits; a call read after it runs and waits for
// the test; the call after that is not read until the first ends, and
// then is (the control), the client still reading nothing; each is
// answered once the client reads. Before, every request was read while
// the answers waiting were within their bounds, and the answers of the
// runs in flight passed them: a client whose runs end before their
// answers are made had each request it sent taken, up to maxPending.
func TestStreamReadsNoFurtherWhileBehind(t *testing.T) {
	runner := &fakeRunner{block: make(chan struct{}), start: make(chan struct{})}
	s, err := New(Config{Runner: runner, Workers: 4})
	if err != nil {
		t.Fatal(err)
	}
	p, sc := initializedUnread(t, s, bufio.MaxScanTokenSize)
	p.send(t, `{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	p.waitUntil(t, "the ping's answer waits", func(c *lineConn) bool { return c.waiting == 1 })
	deadline := time.Now().Add(testkit.Bound(20 * time.Second))
	state := func() (pending, waiting int) {
		p.conn.mu.Lock()
		defer p.conn.mu.Unlock()
		return len(p.conn.pending), p.conn.waiting
	}
	until := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never", what)
			}
			runtime.Gosched()
		}
	}
	p.send(t, fmt.Sprintf(runCall, 1))
	<-runner.start // the call 1 runs, and waits for the test
	sent := make(chan struct{})
	go func() {
		// Taken by the reading of lines, which waits for room to hand it on.
		_, _ = fmt.Fprintf(p.in, runCall+"\n", 2)
		close(sent)
	}()
	<-sent
	buf := make([]byte, 8<<20)
	until("reading waits for room, or takes the call 2", func() bool {
		if n, _ := state(); n > 2 {
			return true
		}
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			header, _, _ := strings.Cut(g, "\n")
			if strings.Contains(header, "[select") && strings.Contains(g, "door.(*lineConn).room(") {
				return true
			}
		}
		return false
	})
	if n, _ := state(); n != 2 {
		t.Fatalf("%d requests taken while the ping's answer waits and the call 1 runs, want 2: "+
			"the call 2 read before the answer of the call 1 was made", n)
	}
	close(runner.block)
	select {
	case <-runner.start: // the call 2 read once the call 1's answer was made
	case <-time.After(time.Until(deadline)):
		t.Fatal("the call 2 was never read once the call 1 had its answer made")
	}
	answers := map[string]int{}
	for range 3 {
		if !sc.Scan() {
			t.Fatalf("the answers ended: %v", answers)
		}
		var a struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(sc.Bytes(), &a)
		answers[string(a.ID)]++
	}
	if len(answers) != 3 || answers[`"ping"`] != 1 || answers["1"] != 1 || answers["2"] != 1 {
		t.Errorf("answers %v, want the ping, the call 1 and the call 2 answered once each", answers)
	}
}

// counted is the count of requests a client's writer has written, once
// it is at least least or a bound the machine's load sets has passed:
// a request the server took was written, but its writer may not yet
// have counted it.
func counted(written *atomic.Int64, least int) int64 {
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for written.Load() < int64(least) && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	return written.Load()
}

// waitUntil waits until ok holds of the stream's connection, its lock
// held, within a bound the machine's load sets.
func (p *streamPeer) waitUntil(t *testing.T, what string, ok func(c *lineConn) bool) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(20 * time.Second))
	if p.conn == nil {
		select {
		case p.conn = <-p.conns:
		case <-time.After(time.Until(deadline)):
			t.Fatal("the stream was never connected")
		}
	}
	for {
		p.conn.mu.Lock()
		done := ok(p.conn)
		p.conn.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never", what)
		}
		runtime.Gosched()
	}
}

// waitUntilHeld waits until the stream's reading waits for room
// (lineConn.room) at one of its bounds, within a bound the machine's
// load sets: a goroutine blocked in room's select, not one passing
// through room on its way to the next read, which it does before each (a
// snapshot that caught it there read the count of requests taken while
// it was still reading), nor one waiting for the answers of the requests
// in flight to be made, which it does while an answer waits.
func (p *streamPeer) waitUntilHeld(t *testing.T) {
	t.Helper()
	if !p.heldUnless(t, func() bool { return false }) {
		t.Fatal("the server never stopped reading a client that reads nothing")
	}
}

// heldUnless waits as waitUntilHeld does, and reports whether the
// stream's reading came to wait for room at one of its bounds; false
// once past, the client has written each of its requests (the server
// took them all).
func (p *streamPeer) heldUnless(t *testing.T, past func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(20 * time.Second))
	if p.conn == nil {
		select {
		case p.conn = <-p.conns:
		case <-time.After(time.Until(deadline)):
			t.Fatal("the stream was never connected")
		}
	}
	// At a bound, and not waiting for the answers of requests in flight,
	// which would let it read on once they are made.
	atBound := func() bool {
		c := p.conn
		c.mu.Lock()
		defer c.mu.Unlock()
		n := len(c.pending)
		return (n >= maxPending || c.bytes >= maxPendingBytes || c.waiting >= maxWaiting ||
			c.waitingBytes >= maxWaitingBytes) && (c.waiting == 0 || c.made == n)
	}
	buf := make([]byte, 8<<20)
	for time.Now().Before(deadline) {
		if atBound() {
			for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
				header, _, _ := strings.Cut(g, "\n")
				if strings.Contains(header, "[select") && strings.Contains(g, "door.(*lineConn).room(") {
					return true
				}
			}
		}
		if past() {
			return false
		}
		runtime.Gosched()
	}
	t.Fatal("the server never stopped reading a client that reads nothing")
	return false
}

// TestStreamAnswersANullID: a request whose id is null is answered
// (-32600, id null) and nothing in it runs. Before, the SDK took it for a
// notification and answered nothing: its client waited for ever, where
// over /mcp the same request is answered 400, -32600. The control is the
// same call with an id: it runs, and its answer carries the id.
func TestStreamAnswersANullID(t *testing.T) {
	runner := &fakeRunner{}
	s, err := New(Config{Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newStreamPeer(t, s, true)
	p.initialize(t)
	const call = `{"jsonrpc":"2.0","id":%s,"method":"tools/call",` +
		`"params":{"name":"run","arguments":{"source":"print(1)"}}}`
	p.send(t, fmt.Sprintf(call, "null"))
	if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) ||
		!strings.Contains(l, "the id is null") {
		t.Fatalf("the request with the id null: %s, want -32600 with the id null", l)
	}
	if n := runner.ran.Load(); n != 0 {
		t.Errorf("%d runs of the request with the id null, want none", n)
	}
	p.send(t, fmt.Sprintf(call, "5"))
	if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":5,"result":{`) {
		t.Fatalf("the request with the id 5: %.300s, want its result", l)
	}
	if n := runner.ran.Load(); n != 1 {
		t.Errorf("%d runs, want the one of the request with an id", n)
	}
}

// TestStreamRefusalKeepsTheIDOfACallInFlight: a line that is not a
// message but carries the id of a call in flight is refused with the id
// null, and the call is still awaited: once the input ends, its run's
// answer goes out, the only one with its id. Before, the refusal carried
// the call's id (its client took it for the call's answer, and the call
// had two) and counted the call answered: the input's end closed the
// connection under it, its run cancelled as if by its client and its
// answer never sent. The control is the same line with an id not in
// flight, refused with that id.
func TestStreamRefusalKeepsTheIDOfACallInFlight(t *testing.T) {
	p, runner := callInFlight(t)
	p.send(t, `{"id":7,"method":"ping"}`) // no version: not a message
	if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,`) {
		t.Fatalf("the line with the id 7, not in flight: %s, want -32600 with its id", l)
	}
	p.send(t, `{"id":1,"method":"ping"}`)
	if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) {
		t.Fatalf("the line with the id 1 of the call in flight: %s, want -32600 with the id null", l)
	}
	p.in.Close()
	close(runner.block)
	if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":1,"result":{`) ||
		!strings.Contains(l, fakeRunID) {
		t.Fatalf("the call in flight, once the input ended: %.300s, want its run's result", l)
	}
	for l := range p.lines {
		t.Errorf("an answer after the call's: %.300s", l)
	}
	if n := runner.ran.Load(); n != 1 {
		t.Errorf("%d runs, want the call's", n)
	}
}

// TestServeStreamStopsAsServeDoes: once ServeStream's context is done (sabline
// mcp's SIGINT or SIGTERM), a run waiting for the worker is refused at
// once (the server is shutting down), the run in flight is answered when
// it ends, and ServeStream returns nil with every answer written. Before,
// the session was closed at once: the run in flight ran on, answered to
// no one, and the one waiting was held until a worker was free, then
// ended as if its client had cancelled it, answered to no one either.
// The control is the same two calls and the input's end: each runs and
// is answered.
func TestServeStreamStopsAsServeDoes(t *testing.T) {
	for _, stopped := range []bool{true, false} {
		t.Run(map[bool]string{true: "stopped", false: "input ended"}[stopped], func(t *testing.T) {
			runner := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 2)}
			s, err := New(Config{Runner: runner, Workers: 1, Queue: 2})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			p := &streamPeer{in: inW, lines: make(chan string, 16), done: make(chan error, 1)}
			go func() {
				p.done <- s.ServeStream(ctx, inR, outW)
				outW.Close()
			}()
			t.Cleanup(func() { inW.Close(); outR.Close() })
			go p.readAll(outR)
			p.initialize(t)
			p.beginRun(t, runner, 1)
			p.send(t, fmt.Sprintf(runCall, 2))
			waitForWaiting(t, s, 1)
			if stopped {
				cancel()
				if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":2,"result":{`) ||
					!strings.Contains(l, `"isError":true`) || !strings.Contains(l, CodeShuttingDown) {
					t.Fatalf("the call waiting, once stopped: %.300s, want its refusal, %s", l,
						CodeShuttingDown)
				}
			} else {
				p.in.Close()
			}
			close(runner.block)
			answers := map[string]string{}
			for range map[bool]int{true: 1, false: 2}[stopped] {
				l := p.next(t)
				id, _, _ := strings.Cut(strings.TrimPrefix(l, `{"jsonrpc":"2.0","id":`), ",")
				answers[id] = l
			}
			for id, l := range answers {
				if !strings.Contains(l, `"result":{`) || strings.Contains(l, `"isError":true`) {
					t.Errorf("the call %s: %.300s, want its run's result", id, l)
				}
			}
			if _, ok := answers["1"]; !ok {
				t.Errorf("answers %v: want the run in flight's", answers)
			}
			select {
			case err := <-p.done:
				if err != nil {
					t.Errorf("ServeStream: %v, want nil", err)
				}
			case <-time.After(testkit.Bound(10 * time.Second)):
				t.Fatal("ServeStream did not return once its runs were answered")
			}
			for l := range p.lines {
				t.Errorf("an answer more: %.300s", l)
			}
			if n, want := runner.ran.Load(), map[bool]int64{true: 1, false: 2}[stopped]; n != want {
				t.Errorf("%d runs, want %d", n, want)
			}
		})
	}
}

// waitForWaiting waits until n runs wait at s's gate for a worker, within
// a bound the machine's load sets.
func waitForWaiting(t *testing.T, s *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		s.gate.mu.Lock()
		waiting := len(s.gate.waiting)
		s.gate.mu.Unlock()
		if waiting >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runs wait for a worker, want %d", waiting, n)
		}
		runtime.Gosched()
	}
}

// TestStreamCancelNamesOnlyItsCall: a cancel (notifications/cancelled)
// whose requestId is not a string of text or an integer within ±2^53-1
// written in digits is refused (-32600, id null) and stops nothing.
// Before, the SDK read 2.5, or 2.0, as 2, and stopped the call of the id
// 2, which the cancel did not name (over /mcp, which matches the id as
// sent, it stopped nothing). The control is a cancel naming 2, which
// stops the call (and leaves it unanswered,
// TestStreamCancelledCallIsNotAnswered).
func TestStreamCancelNamesOnlyItsCall(t *testing.T) {
	runner := &fakeRunner{start: make(chan struct{}, 1)}
	runner.hold.Store(true)
	s, err := New(Config{Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := newStreamPeer(t, s, true)
	p.initialize(t)
	p.beginRun(t, runner, 2)
	const cancel = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`
	for _, id := range []string{`2.5`, `2.0`, `"\ud800"`} {
		p.send(t, fmt.Sprintf(cancel, id))
		if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) ||
			!strings.Contains(l, "9007199254740991") {
			t.Fatalf("a cancel naming %s: %.300s, want -32600 with the id null, naming the bound", id, l)
		}
	}
	runner.mu.Lock()
	stopped := len(runner.ended)
	runner.mu.Unlock()
	if stopped != 0 {
		t.Fatalf("%d runs stopped by cancels naming no call", stopped)
	}
	p.send(t, fmt.Sprintf(cancel, `2`))
	waitFor(t, func() bool {
		runner.mu.Lock()
		defer runner.mu.Unlock()
		return len(runner.ended) == 1
	})
	runner.mu.Lock()
	defer runner.mu.Unlock()
	if got := runner.ended[0].Message; !strings.Contains(got, errCallCancelled.Error()) {
		t.Errorf("the call once cancelled by its id ended %q, want it to say %q", got, errCallCancelled)
	}
}
