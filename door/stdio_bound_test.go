package door

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestStreamLineAtItsBound: the bound of a line on a stream is the
// line's, its newline not counted. A ping padded to exactly maxLineBytes
// is answered with its result (the control); the same ping one byte
// longer is refused, -32600, and the ping after it is answered. Before,
// the newline was counted against the bound, and a line of exactly
// maxLineBytes was refused as longer than maxLineBytes.
func TestStreamLineAtItsBound(t *testing.T) {
	s, err := New(Config{Runner: &fakeRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	padded := func(id string, n int) string {
		msg := `{"jsonrpc":"2.0","id":"` + id + `","method":"ping"}`
		return msg + strings.Repeat(" ", n-len(msg))
	}
	at, past := padded("at", maxLineBytes), padded("past", maxLineBytes+1)
	in := strings.Join([]string{initLine, initializedLine, at, past,
		`{"jsonrpc":"2.0","id":"after","method":"ping"}`}, "\n") + "\n"
	var out strings.Builder
	_ = s.MCP().Run(context.Background(), StreamTransport(strings.NewReader(in), &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d answers, want 4 (initialize, at, past, after):\n%.2000s", len(lines),
			out.String())
	}
	type answer struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    float64 `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	// Answers come as each is ready: a refusal of the transport's own
	// may go out before the answer to a line read before it.
	byID := map[any]answer{}
	for _, l := range lines {
		var a answer
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		byID[a.ID] = a
	}
	if a, ok := byID["at"]; !ok || a.Error != nil || a.Result == nil {
		t.Errorf("a line of exactly %d bytes: answered %+v, want the ping's result (answers: %q)",
			maxLineBytes, a, lines)
	}
	if a, ok := byID[nil]; !ok || a.Error == nil || a.Error.Code != -32600 {
		t.Errorf("a line of %d bytes: answered %+v, want -32600 with the id null (answers: %q)",
			maxLineBytes+1, a, lines)
	}
	if a, ok := byID["after"]; !ok || a.Error != nil {
		t.Errorf("the ping after them: answered %+v, want its result (answers: %q)", a, lines)
	}
}
