package door

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
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
