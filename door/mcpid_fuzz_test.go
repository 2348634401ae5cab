package door

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCarried: an id a client writes (raw JSON) that carried takes for
// one the SDK writes back as it was sent is written back so: the SDK
// decodes a request with that id, answers it, and the answer's id reads
// as the same JSON value as the one sent (the same text, the same
// integer). The SDK is the reference; carried must never let through an
// id it would answer with another.
func FuzzCarried(f *testing.F) {
	for _, c := range idCases {
		f.Add([]byte(c.id))
	}
	for _, s := range []string{`null`, `"a\u0062"`, `" "`, `""`, `9007199254740991`, `-1`, `01`,
		`+1`, `1 `, ` "x"`, `"\ufffd"`, `"\u00e9"`, `true`, `{}`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) == 0 || string(raw) == "null" || !json.Valid(raw) || !carried(raw) {
			return
		}
		line := append(append([]byte(`{"jsonrpc":"2.0","id":`), raw...), `,"method":"ping"}`...)
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("id %s is carried, and the SDK refuses its request: %v", raw, err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			t.Fatalf("id %s is carried, and the SDK reads its request as %T, no call", raw, msg)
		}
		out, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatalf("id %s: the answer: %v", raw, err)
		}
		var answer struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(out, &answer); err != nil {
			t.Fatalf("id %s: the answer %s: %v", raw, out, err)
		}
		var sent, got any
		decode := func(b []byte, v *any) {
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			if err := d.Decode(v); err != nil {
				t.Fatalf("id %s: %s: %v", raw, b, err)
			}
		}
		decode(raw, &sent)
		decode(answer.ID, &got)
		if sent != got {
			t.Fatalf("id %s is carried, and the SDK answers it with id %s", raw, answer.ID)
		}
	})
}
