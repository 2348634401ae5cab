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

// TestStreamLineLastAtItsBound: the last line of a stream, which ends
// without a newline, is held to the same bound: at maxLineBytes it is
// answered (the control), a byte longer it is refused, -32600. Only a
// newline is not counted, and this line has none.
func TestStreamLineLastAtItsBound(t *testing.T) {
	for _, tt := range []struct {
		name string
		size int
		ok   bool
	}{
		{"at the bound", maxLineBytes, true},
		{"a byte past it", maxLineBytes + 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Runner: &fakeRunner{}})
			if err != nil {
				t.Fatal(err)
			}
			msg := `{"jsonrpc":"2.0","id":"last","method":"ping"}`
			last := msg + strings.Repeat(" ", tt.size-len(msg))
			in := initLine + "\n" + initializedLine + "\n" + last // no newline after it
			var out strings.Builder
			_ = s.MCP().Run(context.Background(), StreamTransport(strings.NewReader(in), &out))
			type answer struct {
				ID    any `json:"id"`
				Error *struct {
					Code float64 `json:"code"`
				} `json:"error"`
			}
			var got *answer
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var a answer
				if err := json.Unmarshal([]byte(l), &a); err != nil {
					t.Fatalf("answer %q: %v", l, err)
				}
				if a.ID == "last" || a.ID == nil {
					got = &a
				}
			}
			switch {
			case got == nil:
				t.Fatalf("a last line of %d bytes: no answer (answers: %.2000s)", tt.size,
					out.String())
			case tt.ok && (got.ID != "last" || got.Error != nil):
				t.Errorf("a last line of %d bytes: answered %+v, want the ping's result", tt.size,
					got)
			case !tt.ok && (got.ID != nil || got.Error == nil || got.Error.Code != -32600):
				t.Errorf("a last line of %d bytes: answered %+v, want -32600 with the id null",
					tt.size, got)
			}
		})
	}
}
