package door

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/codes"
)

// connectMemory connects an SDK client to the door's MCP server in memory.
func connectMemory(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// toolText is the text of a tool result's one content.
func toolText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d contents, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestMCPTools(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, s)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		for _, want := range []string{`"additionalProperties":false`, `"source"`, `"path"`, `"description"`} {
			if !strings.Contains(string(schema), want) {
				t.Errorf("tool %s: input schema %s lacks %s", tool.Name, schema, want)
			}
		}
		if strings.Contains(string(schema), `"required"`) {
			t.Errorf("tool %s: input schema %s requires a field; source and path are each optional", tool.Name, schema)
		}
		if tool.OutputSchema == nil {
			t.Errorf("tool %s has no output schema", tool.Name)
		}
	}
	if strings.Join(names, ",") != "audit,run" {
		t.Errorf("tools %v, want audit and run", names)
	}
}

func TestMCPCall(t *testing.T) {
	tests := []struct {
		name      string
		tool      string
		args      string
		refuse    error
		wantError bool
		wantCode  string
		wantText  string
		wantRuns  int64
	}{
		{name: "run", tool: "run", args: `{"source":"print(1)","allow":["io"]}`, wantText: `"level":"full"`, wantRuns: 1},
		{name: "run by path", tool: "run", args: `{"path":"hello.vel","args":["x"],"stdin":"y"}`, wantText: `"run_id":"0123456789abcdef"`, wantRuns: 1},
		{name: "no_confine", tool: "run", args: `{"source":"print(1)","no_confine":true}`, wantError: true, wantCode: "E301", wantText: "operator's setting"},
		{name: "require_confinement", tool: "run", args: `{"source":"print(1)","require_confinement":"none"}`, wantError: true, wantCode: "E301", wantText: "operator's setting"},
		{name: "unknown argument", tool: "run", args: `{"source":"print(1)","timeout":"1h"}`, wantError: true, wantCode: "E301", wantText: "no field"},
		{name: "no program", tool: "run", args: `{}`, wantError: true, wantCode: "E301", wantText: "no program"},
		{name: "budget wider than the ceiling", tool: "run", args: `{"source":"print(1)","allow":["fs"]}`, refuse: codes.Errorf(codes.E328, "fs is not within"), wantError: true, wantCode: "E328"},
		{name: "audit", tool: "audit", args: `{"source":"# allow: io\nprint(1)"}`, wantText: `"within_ceiling":true`},
		{name: "audit naming confine", tool: "audit", args: `{"source":"print(1)","confine":"off"}`, wantError: true, wantCode: "E301", wantText: "operator's setting"},
		{name: "audit refused", tool: "audit", args: `{"path":"../x.vel"}`, refuse: codes.Errorf(codes.E316, "not under the import root"), wantError: true, wantCode: "E316"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeRunner{refuse: tt.refuse}
			s, err := New(Config{Runner: fake})
			if err != nil {
				t.Fatal(err)
			}
			cs := connectMemory(t, s)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.wantError {
				t.Errorf("IsError %v, want %v", res.IsError, tt.wantError)
			}
			text := toolText(t, res)
			if !strings.Contains(text, tt.wantText) {
				t.Errorf("text %s, want it to hold %s", text, tt.wantText)
			}
			if tt.wantError {
				var body errorBody
				if err := json.Unmarshal([]byte(text), &body); err != nil || body.Error.Code != tt.wantCode {
					t.Errorf("error text %s: want the code %s (%v)", text, tt.wantCode, err)
				}
			} else if res.StructuredContent == nil {
				t.Error("no structured content")
			}
			if got := fake.ran.Load(); got != tt.wantRuns {
				t.Errorf("%d runs, want %d", got, tt.wantRuns)
			}
		})
	}
}

// TestMCPBusy: a tool call past the bound, a run or an audit, is a tool
// error, busy, and runs nothing; with the turn free the audit answers.
func TestMCPBusy(t *testing.T) {
	fake := &fakeRunner{block: make(chan struct{}), start: make(chan struct{}, 2)}
	s, err := New(Config{Runner: fake, Workers: 1, Queue: 0})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, s)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: json.RawMessage(`{"source":"print(1)"}`)})
		done <- res
	}()
	<-fake.start
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run", Arguments: json.RawMessage(`{"source":"print(2)"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(toolText(t, res), `"code":"busy"`) {
		t.Errorf("second call: %v %s, want a busy tool error", res.IsError, toolText(t, res))
	}
	audit := func() *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "audit", Arguments: json.RawMessage(`{"source":"print(2)"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := audit(); !res.IsError || !strings.Contains(toolText(t, res), `"code":"busy"`) {
		t.Errorf("an audit past the bound: %v %s, want a busy tool error, as over HTTP", res.IsError, toolText(t, res))
	}
	close(fake.block)
	if first := <-done; first == nil || first.IsError {
		t.Errorf("first call: %+v, want a run", first)
	}
	if res := audit(); res.IsError {
		t.Errorf("an audit with a free turn: %s, want its answer", toolText(t, res))
	}
	if got := fake.ran.Load(); got != 1 {
		t.Errorf("%d runs, want 1", got)
	}
}

// bearerTransport adds a bearer token to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPStreamableHTTP calls the tools through /mcp with the SDK's
// Streamable HTTP client: with the token a run happens, without it the
// client cannot even connect and nothing runs.
func TestMCPStreamableHTTP(t *testing.T) {
	fake := &fakeRunner{}
	_, ts := newTestServer(t, Config{Runner: fake})
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)

	_, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{}}, MaxRetries: -1}, nil)
	if err == nil {
		t.Fatal("connected to /mcp without the token")
	}
	_, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{"wrong"}}, MaxRetries: -1}, nil)
	if err == nil {
		t.Fatal("connected to /mcp with a wrong token")
	}
	if fake.ran.Load() != 0 {
		t.Fatalf("%d runs without the token", fake.ran.Load())
	}

	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{testToken}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: json.RawMessage(`{"source":"print(1)"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(toolText(t, res), `"level":"full"`) {
		t.Errorf("run over /mcp: %v %s", res.IsError, toolText(t, res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: json.RawMessage(`{"source":"print(1)","confine":"off"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(toolText(t, res), `"code":"E301"`) {
		t.Errorf("confine over /mcp: %v %s, want an E301 tool error", res.IsError, toolText(t, res))
	}
	if got := fake.ran.Load(); got != 1 {
		t.Errorf("%d runs, want 1", got)
	}
}

// TestMCPSchemaNoNull: the lists of the run tool are arrays, never null,
// as the decoder reads them.
func TestMCPSchemaNoNull(t *testing.T) {
	data, err := json.Marshal(mustSchema[RunInput]())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "null") || !strings.Contains(string(data), `"args":{"type":"array"`) {
		t.Errorf("schema %s: want args and allow arrays, never null", data)
	}
	if _, err := decodeRunRequest([]byte(`{"source":"x","args":null}`)); err == nil {
		t.Error("the decoder took null args")
	}
}

// TestStreamTransportDrains: a client that writes its requests and closes
// its end gets an answer to each.
func TestStreamTransportDrains(t *testing.T) {
	fake := &fakeRunner{}
	s, err := New(Config{Runner: fake})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"source":"print(1)"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run","arguments":{"source":"print(1)","confine":"off"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
	}, "\n") + "\n"
	var out strings.Builder
	if err := s.MCP().Run(context.Background(), StreamTransport(strings.NewReader(in), &out)); err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Logf("Run: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d answers, want 4:\n%s", len(lines), out.String())
	}
	for _, id := range []string{`"id":1,`, `"id":2,`, `"id":3,`, `"id":4,`} {
		if !strings.Contains(out.String(), id) {
			t.Errorf("no answer with %s", id)
		}
	}
	if fake.ran.Load() != 1 {
		t.Errorf("%d runs, want 1", fake.ran.Load())
	}
}

// TestMCPArgumentsBound: a tool call's arguments past the server's bound
// on a body are refused, for run and audit alike, whatever the transport
// (here one with no bound of its own); arguments within it are taken.
func TestMCPArgumentsBound(t *testing.T) {
	fake := &fakeRunner{}
	s, err := New(Config{Runner: fake, MaxBodyBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectMemory(t, s)
	for _, tool := range []string{"run", "audit"} {
		for _, n := range []int{10, 300} {
			args := json.RawMessage(`{"source":"` + strings.Repeat("#", n) + `"}`)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil {
				t.Fatal(err)
			}
			if refused := res.IsError && strings.Contains(toolText(t, res), "larger than 200 bytes"); refused != (n > 200) {
				t.Errorf("%s with %d bytes of source: %s; want it refused only past the bound", tool, n, toolText(t, res))
			}
		}
	}
	if got := fake.ran.Load(); got != 1 {
		t.Errorf("%d runs, want the one within the bound", got)
	}
}
