package door

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/internal/jsonenc"
)

// A run's reply is as large as what it printed: up to 1 MiB of each
// stream, any bytes, each control byte or byte of invalid UTF-8 six in
// JSON, and, as an MCP tool's result, its JSON once more as text, each
// quote and backslash two: a reply of a run that printed 1 MiB of
// invalid UTF-8 is 13.6 MB over MCP, 6.3 MB over /v1/run. The doors
// write each reply into room made for it once, where json.Marshal grows
// its buffer a quarter at a time (some five times the bytes it writes,
// allocated), and the MCP SDK encodes a tool's result at four levels,
// escaping its text twice and copying the whole at each.
// TestReplyAllocations holds what one such reply allocates in each door.

// appendJSON appends o as json.Marshal writes it, without reflection
// (package jsonenc), into room made for it once (jsonSize).
// TestRunOutputJSON holds it to json.Marshal's bytes.
func (o *RunOutput) appendJSON(b []byte) []byte {
	if n := o.jsonSize(); cap(b)-len(b) < n {
		b = append(make([]byte, 0, len(b)+n), b...)
	}
	e := &jsonenc.Encoder{B: b}
	e.Open()
	e.Str("run_id", o.RunID)
	e.Str("status", o.Status)
	e.Int("exit_status", int64(o.ExitStatus))
	e.Str("level", o.Level)
	e.Str("reason", o.Reason)
	e.StrOmit("code", o.Code)
	e.StrOmit("message", o.Message)
	e.StrOmit("position", o.Position)
	e.StringsOmit("stack", o.Stack)
	e.Str("stdout", o.Stdout)
	e.Str("stderr", o.Stderr)
	e.StrOmit("testimony", o.Testimony)
	e.Close()
	return e.B
}

// jsonSize is at least the length appendJSON writes: each string
// quoted, and room for the names, the punctuation and the number.
func (o *RunOutput) jsonSize() int {
	const names = 256 // the fields' names, quotes, colons, commas, braces and exit status
	n := names
	for _, s := range [...]string{o.RunID, o.Status, o.Level, o.Reason, o.Code, o.Message,
		o.Position, o.Stdout, o.Stderr, o.Testimony} {
		n += jsonenc.QuotedLen(s)
	}
	for _, f := range o.Stack {
		n += jsonenc.QuotedLen(f) + len(",")
	}
	return n
}

// toolResultOf is a tool's result whose output is data, JSON: the
// structured output, and the same JSON as the text content for clients
// that read only text.
func toolResultOf(data []byte) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(data)}},
		StructuredContent: json.RawMessage(data),
	}
}

// encodedResults is the MCP door's middleware that encodes each
// tools/call's result once, in room made for it (toolResultJSON), and
// hands the SDK those bytes (encodedResult), which it writes as they
// are. A result toolResultJSON cannot write as the SDK would is left to
// the SDK.
func encodedResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && err == nil && method == "tools/call" {
			if data, ok := toolResultJSON(r); ok {
				return &encodedResult{CallToolResult: r, data: data}, nil
			}
		}
		return res, err
	}
}

// encodedResult is a tool's result with its JSON, written as the SDK
// writes the result (toolResultJSON).
type encodedResult struct {
	*mcp.CallToolResult
	data []byte
}

// MarshalJSON is the result's JSON, written already.
func (r *encodedResult) MarshalJSON() ([]byte, error) { return r.data, nil }

// toolResultHead begins the JSON of a tool's result of one text content
// and no _meta, as the SDK writes it, the text empty.
const toolResultHead = `{"content":[{"type":"text","text":""}]`

// toolResultJSON is r as the SDK writes it (CallToolResult.MarshalJSON,
// compacted), in one buffer of its size, for a result as the door's
// tools make it (toolResultOf, toolError): no _meta, one text content
// with no _meta nor annotations, and structured content, if any, JSON an
// encoder wrote (json.Marshal, RunOutput.appendJSON: compact, HTML's
// characters escaped, which the SDK's compaction leaves as they are).
// The fields after them (isError, resultType, ...) are the SDK's own
// encoding of r without its text and structured content. ok is false
// for any other result.
func toolResultJSON(r *mcp.CallToolResult) (data []byte, ok bool) {
	if len(r.Content) != 1 || r.Meta != nil || r.NeedsInput() {
		return nil, false
	}
	text, ok := r.Content[0].(*mcp.TextContent)
	if !ok || text.Meta != nil || text.Annotations != nil {
		return nil, false
	}
	raw, isRaw := r.StructuredContent.(json.RawMessage)
	if r.StructuredContent != nil && (!isRaw || len(raw) == 0) {
		return nil, false
	}
	rest := *r
	rest.Content, rest.StructuredContent = []mcp.Content{&mcp.TextContent{}}, nil
	probe, err := json.Marshal(&rest)
	if err != nil || !bytes.HasPrefix(probe, []byte(toolResultHead)) {
		return nil, false
	}
	tail := probe[len(toolResultHead):]
	const structured = `,"structuredContent":`
	head := toolResultHead[:len(toolResultHead)-len(`""}]`)]
	n := len(toolResultHead) + jsonenc.QuotedLen(text.Text) + len(tail)
	if raw != nil {
		n += len(structured) + len(raw)
	}
	data = append(make([]byte, 0, n), head...)
	data = append(jsonenc.AppendString(data, text.Text), "}]"...)
	if raw != nil {
		data = append(append(data, structured...), raw...)
	}
	return append(data, tail...), true
}
