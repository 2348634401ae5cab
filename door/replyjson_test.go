package door

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/fill"
)

// replyOutputs are the standard outputs whose replies the tests of this
// file hold: a run's worst, 1 MiB of control bytes or of invalid UTF-8
// (each six bytes in JSON), NUL, the separators JavaScript does not
// take, HTML's characters, every class of byte, and the control, plain
// ASCII.
var replyOutputs = []struct{ name, stdout string }{
	{"control bytes", strings.Repeat("\x01", 1<<20)},
	{"invalid UTF-8", strings.Repeat("\xff", 1<<20)},
	{"NUL", strings.Repeat("\x00", 1<<10)},
	{"U+2028 and U+2029", strings.Repeat("\u2028\u2029", 1<<8)},
	{"HTML", `<a href="x">&amp;</a>\`},
	{"every class of byte", fill.TrickyText},
	{"ASCII", strings.Repeat("a", 1<<20)},
}

// replyDoors sends one run to each door of a server in this process and
// takes its reply: /v1/run and /mcp through the handler (MCP's protocol
// of 2025-06-18), and MCP on a stream, its session open at protocol
// version. Kept replies are returned; otherwise only their sizes are
// counted, and nothing of the reply is held.
type replyDoors struct {
	h     http.Handler
	keep  bool
	in    *io.PipeWriter
	sink  *lineSink
	calls int
}

func newReplyDoors(t *testing.T, s *Server, keep bool, version string) *replyDoors {
	t.Helper()
	inR, inW := io.Pipe()
	d := &replyDoors{h: s.Handler(), keep: keep, in: inW,
		sink: &lineSink{keep: keep, lines: make(chan []byte, 16)}}
	done := make(chan struct{})
	go func() { _ = s.MCP().Run(context.Background(), StreamTransport(inR, d.sink)); close(done) }()
	t.Cleanup(func() { inW.Close(); <-done })
	d.send(t, strings.Replace(initLine, "2025-06-18", version, 1))
	d.send(t, initializedLine)
	return d
}

// send writes line to the stream; a request's answer is then awaited.
func (d *replyDoors) send(t *testing.T, line string) []byte {
	t.Helper()
	if _, err := io.WriteString(d.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, `"id"`) {
		return nil
	}
	select {
	case l := <-d.sink.lines:
		return l
	case <-time.After(testkit.Bound(time.Minute)):
		t.Fatal("no answer on the stream")
	}
	return nil
}

// stream is a tools/call of tool with arguments args on the stream.
func (d *replyDoors) stream(t *testing.T, tool, args string) []byte {
	d.calls++
	return d.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call",`+
		`"params":{"name":%q,"arguments":%s}}`, d.calls, tool, args))
}

// post sends body to path through the handler, as a client of the
// server's token on loopback.
func (d *replyDoors) post(t *testing.T, path, body string) (*bodySink, int) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080"+path, strings.NewReader(body))
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey,
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	w := &bodySink{header: http.Header{}, keep: d.keep}
	d.h.ServeHTTP(w, req)
	return w, w.status
}

// bodySink is a ResponseWriter that counts a reply's bytes, and keeps
// them when keep is set.
type bodySink struct {
	header http.Header
	status int
	keep   bool
	n      int
	body   bytes.Buffer
}

func (w *bodySink) Header() http.Header { return w.header }
func (w *bodySink) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}
func (w *bodySink) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	if w.keep {
		w.body.Write(p)
	}
	return len(p), nil
}
func (w *bodySink) Flush() {}

// lineSink is a stream's other end: it counts the bytes written, and
// sends each line on lines once its newline is written, its bytes (its
// newline cut) when keep is set.
type lineSink struct {
	mu    sync.Mutex
	keep  bool
	n     int
	line  bytes.Buffer
	lines chan []byte
}

func (w *lineSink) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if w.keep {
				w.line.Write(rest)
			}
			break
		}
		var line []byte
		if w.keep {
			w.line.Write(rest[:i])
			line = bytes.Clone(w.line.Bytes())
			w.line.Reset()
		}
		w.lines <- line
		rest = rest[i+1:]
	}
	return len(p), nil
}

// The most one reply of a run may allocate in the door, as a multiple of
// the reply's size (the bytes its client reads). A run's output, at most
// 1 MiB a stream, makes the reply, so the reply bounds it. Over
// /v1/run the reply is written once, in room made for it. Over MCP on a
// stream: the output's JSON (at most half the reply: the reply holds it
// twice, once as text), its copy as the text content's string (as
// much), the result written once in room made for it (1), then the
// SDK's copy of that into its response and the response's into its
// buffer (2): 4, and one to spare. Over /mcp, the SDK's encoding of the
// response for the HTTP stream besides (up to 2 more), and half a reply
// to spare, as over /v1/run, for the request and the exchange around it.
// Before, json.Marshal
// grew its buffer a quarter at a time, and the SDK encoded a tool's
// result at four levels, escaping its text twice: 7.3 times the reply
// over /v1/run, 9.7 over MCP for control bytes, 13.6 for invalid UTF-8.
const (
	mostPerReplyHTTP   = 1.5
	mostPerReplyStream = 5
	mostPerReplyMCP    = 6.5
)

// TestReplyAllocations: one reply of a run that printed 1 MiB of control
// bytes, or of invalid UTF-8, allocates in the door at most a small
// multiple of the reply's size, in each door: /v1/run, MCP on a stream
// (sabline mcp) and /mcp. Before, one such reply over MCP (13.6 MB)
// allocated 132 and 185 MB, and over /v1/run (6.3 MB) 46 MB: a few
// clients at once took a door's memory past a GB. The control: 1 MiB of
// ASCII is answered whole, within the same bounds.
func TestReplyAllocations(t *testing.T) {
	for _, tc := range replyOutputs {
		if len(tc.stdout) < 1<<20 {
			continue // too small to measure against the door's own overheads
		}
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeRunner{stdout: tc.stdout, redact: true}
			s, err := New(Config{Runner: fake, Token: testToken})
			if err != nil {
				t.Fatal(err)
			}
			d := newReplyDoors(t, s, false, "2025-06-18")
			for _, door := range []struct {
				name string
				most float64
				call func() int // one call, the size of its reply
			}{
				{"/v1/run", mostPerReplyHTTP, func() int {
					w, st := d.post(t, "/v1/run", `{"source":"print(1)"}`)
					if st != http.StatusOK {
						t.Fatalf("/v1/run: %d", st)
					}
					return w.n
				}},
				{"MCP on a stream", mostPerReplyStream, func() int {
					before := d.sink.n
					d.stream(t, "run", `{"source":"print(1)"}`)
					return d.sink.n - before
				}},
				{"/mcp", mostPerReplyMCP, func() int {
					w, st := d.post(t, "/mcp", mcpCallBody("run"))
					if st != http.StatusOK {
						t.Fatalf("/mcp: %d", st)
					}
					return w.n
				}},
			} {
				door.call() // the first call's allocations of a kind, made once
				var size int
				got := ^uint64(0)
				for range 3 { // the least: another goroutine's allocations are counted too
					got = min(got, allocated(func() { size = door.call() }))
				}
				if size < len(tc.stdout) {
					t.Fatalf("%s: a reply of %d bytes, shorter than the output", door.name, size)
				}
				ratio := float64(got) / float64(size)
				t.Logf("%s: a reply of %.1f MB allocated %.1f MB (%.1f times)", door.name,
					float64(size)/1e6, float64(got)/1e6, ratio)
				if ratio > door.most {
					t.Errorf("%s: a reply of %.1f MB allocated %.1f MB in the door, %.1f times "+
						"it, more than %.1f", door.name, float64(size)/1e6, float64(got)/1e6, ratio,
						door.most)
				}
			}
		})
	}
}

// sdkResult is v as the SDK writes a request's result (its jsonrpc2
// package's jsonMarshal: encoding/json, HTML's characters not escaped).
func sdkResult(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// runReplyBefore is the reply of /v1/run as it was written before
// RunOutput.appendJSON: json.Marshal of runJSON, a redacted receipt put
// in after it as it is.
func runReplyBefore(t *testing.T, r RunReply) []byte {
	t.Helper()
	if len(r.Receipt) == 0 || !sameBytes(r.Receipt, r.redacted) {
		data, err := json.Marshal(runJSON{runOutputOf(r), r.Receipt})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	head, err := json.Marshal(runJSON{RunOutput: runOutputOf(r)})
	if err != nil {
		t.Fatal(err)
	}
	return append(append(append(head[:len(head)-1], `,"receipt":`...), r.Receipt...), '}')
}

// resultsAsBefore is a middleware, outside the door's own, that hands
// the SDK each tool's result as the door made it before it encoded
// them itself (encodedResults): a run's output as json.Marshal writes
// it (of fake's last reply), and every result encoded by the SDK.
func resultsAsBefore(fake *fakeRunner) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			e, ok := res.(*encodedResult)
			if !ok {
				return res, err
			}
			r := *e.CallToolResult // the SDK's own fields, resultType among them, kept
			if call, ok := req.(*mcp.CallToolRequest); ok && call.Params.Name == "run" && !r.IsError {
				fake.mu.Lock()
				reply := fake.lastReply
				fake.mu.Unlock()
				data, merr := json.Marshal(runOutputOf(reply))
				if merr != nil {
					return nil, merr
				}
				r.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
				r.StructuredContent = json.RawMessage(data)
			}
			return &r, err
		}
	}
}

// TestRepliesAsBefore: each door's reply to a run is, byte for byte,
// what it was before the door wrote its replies in room made for them:
// /v1/run's json.Marshal of the reply (a receipt redacted or not), and
// an MCP tool's result as the SDK encoded it (a result of a run, of an
// audit and a tool's error), on a stream at the newest protocol (whose
// results the SDK gives a resultType) and over /mcp at 2025-06-18, for
// outputs of control bytes, invalid UTF-8, NUL, U+2028, HTML's
// characters and plain ASCII.
func TestRepliesAsBefore(t *testing.T) {
	for _, tc := range replyOutputs {
		for _, redact := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, receipt redacted %v", tc.name, redact), func(t *testing.T) {
				servers := [2]*replyDoors{}
				fakes := [2]*fakeRunner{}
				for i := range servers {
					fakes[i] = &fakeRunner{stdout: tc.stdout, redact: redact}
					s, err := New(Config{Runner: fakes[i], Token: testToken})
					if err != nil {
						t.Fatal(err)
					}
					if i == 1 {
						s.MCP().AddReceivingMiddleware(resultsAsBefore(fakes[i]))
					}
					servers[i] = newReplyDoors(t, s, true, "2026-07-28")
				}
				now, before := servers[0], servers[1]

				before.post(t, "/v1/run", `{"source":"print(1)"}`) // its run ids as now's
				w, st := now.post(t, "/v1/run", `{"source":"print(1)"}`)
				want := append(runReplyBefore(t, fakes[0].lastReply), '\n')
				if st != http.StatusOK || !bytes.Equal(w.body.Bytes(), want) {
					t.Errorf("/v1/run: %d\n%.300q\nwant, as before,\n%.300q", st, w.body.Bytes(), want)
				}
				for _, call := range []struct{ tool, args string }{
					{"run", `{"source":"print(1)"}`},
					{"audit", `{"source":"print(1)"}`},
					{"run", `{"source":"print(1)","sauce":"<x>"}`}, // refused: a tool's error
				} {
					got, want := now.stream(t, call.tool, call.args), before.stream(t, call.tool, call.args)
					if refused := strings.Contains(call.args, "sauce"); refused !=
						bytes.Contains(got, []byte(`"isError":true`)) {
						t.Errorf("%s %s: %.300q, a tool's error %v", call.tool, call.args, got, refused)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s %s on a stream:\n%.300q\nwant, as before,\n%.300q", call.tool,
							call.args, got, want)
					}
					body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call",`+
						`"params":{"name":%q,"arguments":%s}}`, call.tool, call.args)
					gw, gst := now.post(t, "/mcp", body)
					ww, wst := before.post(t, "/mcp", body)
					if gst != wst || !bytes.Equal(gw.body.Bytes(), ww.body.Bytes()) {
						t.Errorf("%s %s over /mcp: %d\n%.300q\nwant, as before, %d\n%.300q", call.tool,
							call.args, gst, gw.body.Bytes(), wst, ww.body.Bytes())
					}
				}
			})
		}
	}
}

// TestToolResultJSON: toolResultJSON writes what the SDK writes for
// each result the door's tools make (toolResultOf, toolError), and
// leaves to the SDK every other: _meta, two contents, a content not
// text, a text content's annotations, structured content not
// json.RawMessage. The control: the SDK's encoding of a result the
// door hands it (encodedResult) is toolResultJSON's bytes.
func TestToolResultJSON(t *testing.T) {
	out := fill.Filled[RunOutput](t, 1)
	out.Stdout = fill.TrickyText
	ours := []*mcp.CallToolResult{
		toolResultOf(out.appendJSON(nil)),
		toolResultOf([]byte(`{}`)),
		toolError(errorDetail{Code: "E301", Message: fill.TrickyText, RunID: "r"}),
	}
	for _, r := range ours {
		data, ok := toolResultJSON(r)
		if want := sdkResult(t, r); !ok || !bytes.Equal(data, want) {
			t.Errorf("toolResultJSON writes %q (%v), the SDK %q", data, ok, want)
		}
		if got := sdkResult(t, &encodedResult{CallToolResult: r, data: data}); !bytes.Equal(got, data) {
			t.Errorf("the SDK writes an encoded result as %q, want %q", got, data)
		}
	}
	text := &mcp.TextContent{Text: "x"}
	for name, r := range map[string]*mcp.CallToolResult{
		"_meta":         {Meta: mcp.Meta{"a": 1}, Content: []mcp.Content{text}},
		"two contents":  {Content: []mcp.Content{text, text}},
		"no content":    {},
		"an image":      {Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x")}}},
		"annotations":   {Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}},
		"a text's meta": {Content: []mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"a": 1}}}},
		"a map":         {Content: []mcp.Content{text}, StructuredContent: map[string]any{"a": "<"}},
		"raw, empty":    {Content: []mcp.Content{text}, StructuredContent: json.RawMessage{}},
	} {
		if data, ok := toolResultJSON(r); ok {
			t.Errorf("%s: written as %q, want it left to the SDK", name, data)
		}
	}
}

// TestRunOutputJSON: RunOutput.appendJSON writes json.Marshal's bytes
// for outputs that set every field in turn (fill.Filled: a field the
// writer leaves out is set in one of them), the zero output, one whose
// stack is empty, and text of every class of byte, within the room
// jsonSize makes.
func TestRunOutputJSON(t *testing.T) {
	vs := map[string]RunOutput{"zero": {}}
	for bit := range uint(6) {
		vs[fmt.Sprintf("filled, bools by bit %d", bit)] = fill.Filled[RunOutput](t, bit)
	}
	empty := fill.Filled[RunOutput](t, 0)
	fill.Emptied(reflect.ValueOf(&empty).Elem())
	vs["empty lists"] = empty
	tricky := fill.Filled[RunOutput](t, 1)
	tricky.Stdout, tricky.Stderr, tricky.Stack[0], tricky.Message = fill.TrickyText,
		strings.Repeat("\x01\xff", 99), fill.TrickyText, fill.TrickyText
	vs["tricky"] = tricky
	for name, o := range vs {
		want, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		got := o.appendJSON([]byte("before"))
		if !bytes.Equal(got, append([]byte("before"), want...)) {
			t.Errorf("%s: appendJSON writes\n%s\njson.Marshal\n%s", name, got, want)
		}
		if n := o.jsonSize(); len(want) > n {
			t.Errorf("%s: %d bytes written, past the %d jsonSize makes room for", name, len(want), n)
		}
	}
}

// TestStreamWritesAResultAsEncoded: a response on a stream is
// jsonrpc.EncodeMessage's bytes and a newline, written in parts
// (onTheLine): a result, an error, an id that is a string, and a
// result of HTML's characters, which EncodeMessage leaves as they are.
func TestStreamWritesAResultAsEncoded(t *testing.T) {
	id1, _ := jsonrpc.MakeID(float64(1))
	idS, _ := jsonrpc.MakeID("a<b")
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: id1, Result: json.RawMessage(`{"a":"<\u2028>"}`)},
		&jsonrpc.Response{ID: idS, Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id1, Error: &jsonrpc.Error{Code: -32600, Message: "x"}},
		&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{}`)},
	} {
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := onTheLine(msg)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Join(parts, nil); !bytes.Equal(got, append(want, '\n')) {
			t.Errorf("on the line %q, EncodeMessage %q", got, want)
		}
	}
}

// replySink keeps what TestRunReplyRoomMadeOnce writes, so that none of
// it is left unwritten.
var replySink []byte

// TestRunReplyRoomMadeOnce: the reply of /v1/run, a receipt of 64 KiB put
// in as it is and the newline writeJSON ends it with, is written in room
// made for it once: no more allocations than the same reply without a
// receipt (the control), where making no room for the receipt grew the
// reply, a copy of it whole, once it was written.
func TestRunReplyRoomMadeOnce(t *testing.T) {
	pad := strings.Repeat("a", 64<<10)
	rec := json.RawMessage(`{"schema":"sabline.receipt/1","pad":"` + pad + `"}`)
	allocs := func(r RunReply) float64 {
		return testing.AllocsPerRun(5, func() {
			data, err := marshalReply(runReplyJSON(r))
			if err != nil {
				t.Fatal(err)
			}
			replySink = append(data, '\n')
		})
	}
	with := RunReply{RunID: "r1", Status: "ok", Level: "full", Stdout: strings.Repeat("\x01", 1<<20),
		Receipt: rec}
	with.redacted = with.Receipt
	without := with
	without.Receipt, without.redacted = nil, nil
	if a, b := allocs(with), allocs(without); a > b {
		t.Errorf("the reply with its receipt: %.0f allocations; without it: %.0f", a, b)
	}
	if !bytes.HasSuffix(replySink, []byte("}\n")) {
		t.Errorf("the reply ends %q", replySink[max(0, len(replySink)-20):])
	}
}

// TestStreamSmallResultOneWrite: a response whose result is at most
// oneWrite bytes goes on the line in one write, its newline with it, so
// that a small stdio reply is one system call; a larger one is written
// in parts, around its result, without a copy of it (the control). Both
// are the bytes jsonrpc.EncodeMessage writes.
func TestStreamSmallResultOneWrite(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(1))
	for _, tc := range []struct {
		name  string
		size  int
		parts int
	}{
		{name: "small", size: 100, parts: 1},
		{name: "at oneWrite", size: oneWrite, parts: 1},
		{name: "past oneWrite (the control)", size: oneWrite + 1, parts: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result := json.RawMessage(`"` + strings.Repeat("a", tc.size-2) + `"`)
			msg := &jsonrpc.Response{ID: id, Result: result}
			want, err := jsonrpc.EncodeMessage(msg)
			if err != nil {
				t.Fatal(err)
			}
			parts, err := onTheLine(msg)
			if err != nil {
				t.Fatal(err)
			}
			got := bytes.Join(parts, nil)
			if len(parts) != tc.parts || !bytes.Equal(got, append(want, '\n')) {
				t.Errorf("a result of %d bytes in %d writes (%.60q...); want %d, as EncodeMessage "+
					"writes it", tc.size, len(parts), got, tc.parts)
			}
		})
	}
}
