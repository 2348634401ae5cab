package door

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// notServed are requests of methods the door does not answer: MCP's
// that a server is not sent or that the door does not declare, and none
// of MCP's.
var notServed = []string{"foo/bar", "sampling/createMessage", "roots/list", "tasks/list",
	"elicitation/create", "resources/subscribe", "subscriptions/listen"}

// served is a request of each of mcpMethods, with params it takes.
var served = map[string]string{
	"initialize":               initParams,
	"ping":                     `{}`,
	"tools/list":               `{}`,
	"tools/call":               `{"name":"audit","arguments":{"source":"print(1)"}}`,
	"resources/list":           `{}`,
	"resources/read":           `{"uri":"sabline://receipts/0123456789abcdef"}`,
	"resources/templates/list": `{}`,
	"completion/complete": `{"ref":{"type":"ref/resource","uri":"sabline://receipts/{id}"},` +
		`"argument":{"name":"id","value":"0"}}`,
	"prompts/list":     `{}`,
	"prompts/get":      `{"name":"none"}`,
	"logging/setLevel": `{"level":"info"}`,
}

const initParams = `{"protocolVersion":"2025-06-18","capabilities":{},` +
	`"clientInfo":{"name":"t","version":"1"}}`

// TestMCPMethodNotFound: a request whose method the door does not answer
// is answered -32601 (method not found) with its id, on standard input
// and over /mcp alike (status 200, JSON). Before, /mcp answered a method
// the MCP SDK does not know (foo/bar, sampling/createMessage, roots/list,
// tasks/list) 400 with -32600 and the id null, as a message it could not
// take, where standard input answered -32601 with its id; and it
// answered subscriptions/listen, which the door does not declare, with a
// result. The control is a request of each method the door answers
// (mcpMethods), never -32601, on both.
func TestMCPMethodNotFound(t *testing.T) {
	if len(served) != len(mcpMethods) {
		t.Fatalf("served holds %d methods, mcpMethods %d", len(served), len(mcpMethods))
	}
	check := func(t *testing.T, method, wantID string, a rpcAnswer, found bool) {
		t.Helper()
		switch {
		case string(a.ID) != wantID:
			t.Errorf("%s: answered with the id %s, want %s", method, a.ID, wantID)
		case found && a.Error != nil && a.Error.Code == -32601:
			t.Errorf("%s, a method the door answers: %+v", method, *a.Error)
		case !found && (a.Error == nil || a.Error.Code != -32601 ||
			!strings.Contains(a.Error.Message, "tools/call")):
			t.Errorf("%s: %+v, %s: want -32601 naming the methods answered", method, a.Error, a.Result)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		s, err := New(Config{Runner: &fakeRunner{}})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := newStreamPeer(t, s, true)
		p.initialize(t)
		ask := func(method, params string) rpcAnswer {
			// Each its own id: an id reused at once may find its answer
			// still being counted, and be refused as in use.
			p.send(t, `{"jsonrpc":"2.0","id":"`+method+`","method":"`+method+`","params":`+params+`}`)
			var a rpcAnswer
			if l := p.next(t); json.Unmarshal([]byte(l), &a) != nil {
				t.Fatalf("%s: answered %q", method, l)
			}
			return a
		}
		for _, m := range notServed {
			check(t, m, strconv.Quote(m), ask(m, `{}`), false)
		}
		for _, m := range mcpMethods {
			if m != "initialize" { // answered already: a second is refused
				check(t, m, strconv.Quote(m), ask(m, served[m]), true)
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		_, ts := newTestServer(t, Config{Runner: &fakeRunner{}})
		ask := func(method, params string) rpcAnswer {
			resp, body := postMCP(t, ts.URL, bearer,
				`{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":`+params+`}`)
			var a rpcAnswer
			if resp.StatusCode != http.StatusOK ||
				!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
				json.Unmarshal(body, &a) != nil {
				t.Errorf("%s: %s, %s, %.300q: want 200, a JSON answer", method, resp.Status,
					resp.Header.Get("Content-Type"), body)
			}
			return a
		}
		for _, m := range notServed {
			check(t, m, `7`, ask(m, `{}`), false)
		}
		for _, m := range mcpMethods {
			check(t, m, `7`, ask(m, served[m]), true)
		}
	})
}
