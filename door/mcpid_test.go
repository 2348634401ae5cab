package door

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// idCases are JSON-RPC ids as a client writes them: those the answer
// could not carry as sent (the SDK reads a number as a float64 and
// writes it as an int64, and puts U+FFFD for a string's bytes that are
// not text), and the controls, which it carries as sent.
var idCases = []struct {
	id      string
	refused bool
}{
	{`9007199254740993`, true}, // answered 9007199254740992
	{`18446744073709551615`, true},
	{`-9223372036854775809`, true},
	{`9007199254740992`, true}, // carried, but past the bound an id is held to
	{`-9007199254740992`, true},
	{`2.7`, true}, // answered 2
	{`1.0`, true},
	{`1e3`, true},
	{`-0`, true},
	{`"\ud800"`, true}, // a lone surrogate: answered "\ufffd"
	{"\"\xff\"", true}, // not UTF-8: answered "\ufffd"
	// Controls.
	{`9007199254740991`, false},
	{`-9007199254740991`, false},
	{`0`, false},
	{`7`, false},
	{`"abc"`, false},
	{`"9007199254740993"`, false},
	{`"été"`, false},
}

// rpcAnswer is a JSON-RPC answer as the test reads it: the id as written.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// checkIDAnswer holds answer, to a request of id c.id, to what idCases
// says of it: refused -32600 with the id null, naming the bound; or a
// result carrying the id as sent.
func checkIDAnswer(t *testing.T, where, id string, refused bool, answer []byte) {
	t.Helper()
	var a rpcAnswer
	if err := json.Unmarshal(answer, &a); err != nil {
		t.Fatalf("%s: id %s: the answer %q: %v", where, id, answer, err)
	}
	switch {
	case refused && (a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" ||
		!strings.Contains(a.Error.Message, "9007199254740991")):
		t.Errorf("%s: id %s: answered %s; want -32600, id null, naming the bound: the answer "+
			"would carry another id", where, id, answer)
	case !refused && (a.Error != nil || a.Result == nil || string(a.ID) != id):
		t.Errorf("%s: id %s: answered %s; want a result carrying the id as sent", where, id, answer)
	}
}

// TestMCPAnswersTheIDItWasSent: a request whose id the answer could not
// carry as sent (a number past 2^53-1, with a fraction or an exponent,
// -0; a string holding bytes that are not UTF-8 or a lone surrogate) is
// refused (-32600, id null), on /mcp and on standard input, and a
// tools/call of such an id runs nothing; before, it was answered with
// another id (9007199254740993 as 9007199254740992, 2.7 as 2,
// 18446744073709551615 as -9223372036854775808), which its client could
// not match to its request, or took for another's. Controls: strings and
// integers within the bound are answered with their id as sent, a call
// of one runs.
func TestMCPAnswersTheIDItWasSent(t *testing.T) {
	f := &fakeRunner{}
	_, ts := newTestServer(t, Config{Runner: f})
	for _, c := range idCases {
		resp, body := postMCP(t, ts.URL, bearer, `{"jsonrpc":"2.0","id":`+c.id+`,"method":"ping"}`)
		want := http.StatusOK
		if c.refused {
			want = http.StatusBadRequest
		}
		if resp.StatusCode != want {
			t.Errorf("/mcp: id %s: status %d, want %d", c.id, resp.StatusCode, want)
		}
		checkIDAnswer(t, "/mcp", c.id, c.refused, body)
	}
	call := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"run",` +
			`"arguments":{"source":"print(1)"}}}`
	}
	if _, body := postMCP(t, ts.URL, bearer, call(`9007199254740993`)); f.ran.Load() != 0 {
		t.Errorf("/mcp: a tools/call of id 9007199254740993 ran: %s", body)
	}
	if _, body := postMCP(t, ts.URL, bearer, call(`9007199254740991`)); f.ran.Load() != 1 ||
		!strings.HasPrefix(string(body), `{"jsonrpc":"2.0","id":9007199254740991,"result"`) {
		t.Errorf("/mcp: a tools/call of id 9007199254740991: %d runs, answered %.200s; want one "+
			"run, answered with its id", f.ran.Load(), body)
	}

	for _, c := range idCases { // a session each
		s, err := New(Config{Runner: &fakeRunner{}})
		if err != nil {
			t.Fatal(err)
		}
		lines := []string{initLine, initializedLine, `{"jsonrpc":"2.0","id":` + c.id + `,"method":"ping"}`}
		var out strings.Builder
		in := strings.NewReader(strings.Join(lines, "\n") + "\n")
		_ = s.MCP().Run(context.Background(), StreamTransport(in, &out))
		answers := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(answers) != 2 {
			t.Fatalf("standard input: %d answers, want 2:\n%.2000s", len(answers), out.String())
		}
		// A refusal of the transport's may go out before the answer to
		// initialize.
		ping := answers[1]
		if strings.HasPrefix(ping, `{"jsonrpc":"2.0","id":"init",`) {
			ping = answers[0]
		}
		checkIDAnswer(t, "standard input", c.id, c.refused, []byte(ping))
	}
}

// TestMCPProgressTokenAsSent: a request whose progress token
// (_meta.progressToken) is not a string of text or an integer within
// ±2^53-1 written in digits (as for an id: idCases) is refused, -32600
// naming the bound, and its call runs nothing: on standard input with
// its id, on /mcp with status 400. Before, the call ran and was told of
// its progress under another token (9007199254740993 as
// 9007199254740992, 1e3 as 1000, "\ud800" as "\ufffd"), which its
// client could not match to its call, or took for another's. Controls: a
// string or an integer within the bound runs, and on standard input its
// progress carries it as sent.
func TestMCPProgressTokenAsSent(t *testing.T) {
	call := func(token string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run",` +
			`"arguments":{"source":"print(1)"},"_meta":{"progressToken":` + token + `}}}`
	}
	for _, c := range idCases {
		runner := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 1)}
		s, err := New(Config{Runner: runner})
		if err != nil {
			t.Fatal(err)
		}
		s.progressEvery = 5 * time.Millisecond
		p, _ := newStreamPeer(t, s, true)
		p.send(t, initLine)
		p.next(t)
		p.send(t, initializedLine)
		p.send(t, call(c.id))
		if c.refused {
			if l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,`) ||
				!strings.Contains(l, "9007199254740991") {
				t.Errorf("standard input: token %s: answered %.300s; want -32600 with the id 3, "+
					"naming the bound", c.id, l)
			}
			if n := runner.ran.Load(); n != 0 {
				t.Errorf("standard input: token %s: %d runs, want none", c.id, n)
			}
			close(runner.block)
			continue
		}
		select {
		case <-runner.start:
		case <-time.After(testkit.Bound(10 * time.Second)):
			t.Fatalf("standard input: token %s: the run did not begin", c.id)
		}
		var note struct {
			Method string `json:"method"`
			Params struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(p.next(t)), &note); err != nil ||
			note.Method != "notifications/progress" || string(note.Params.Token) != c.id {
			t.Errorf("standard input: token %s: progress %+v, %v; want the token as sent", c.id,
				note, err)
		}
		close(runner.block)
		for l := p.next(t); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":3,`); l = p.next(t) {
		}
	}

	f := &fakeRunner{}
	_, ts := newTestServer(t, Config{Runner: f})
	for _, c := range idCases {
		ran := f.ran.Load()
		resp, body := postMCP(t, ts.URL, bearer, call(c.id))
		if c.refused && (resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(string(body), `"code":-32600`) || f.ran.Load() != ran) {
			t.Errorf("/mcp: token %s: status %d, %d runs, %.300s; want 400, -32600, no run", c.id,
				resp.StatusCode, f.ran.Load()-ran, body)
		}
		if !c.refused && (resp.StatusCode != http.StatusOK || f.ran.Load() != ran+1) {
			t.Errorf("/mcp: token %s: status %d, %d runs, %.300s; want 200 and its run", c.id,
				resp.StatusCode, f.ran.Load()-ran, body)
		}
	}
}
