package door

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestRunReplyJSON: a reply whose receipt is the one the door redacted
// is written around the receipt's bytes, as they are, and decodes to what
// json.Marshal of runJSON made of it before; a receipt of another Runner,
// one put in the redacted one's place or cut from it, and none at all are
// written as json.Marshal writes them, byte for byte (the controls).
func TestRunReplyJSON(t *testing.T) {
	h := newHostFacts("/srv/root", "/srv/receipts")
	redacted := func(t *testing.T, receipt string) RunReply {
		r, err := h.reply(RunReply{RunID: "r1", Status: "ok", Level: "full", Stdout: "<b>hi</b>\n",
			Reason: "the workers may read the import root /srv/root", Stack: []string{"/srv/root/a.vel:1:1"},
			Receipt: json.RawMessage(receipt)})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	const rec = `{"schema":"sabline.receipt/1","program":{"path":"/srv/root/a.vel"},"n":1.5e-7,"x":"a\u003cb"}`
	tests := []struct {
		name        string
		reply       func(t *testing.T) RunReply
		wantSpliced bool // written around the receipt's bytes
		wantReceipt string
	}{
		{name: "redacted by the door", reply: func(t *testing.T) RunReply { return redacted(t, rec) },
			wantSpliced: true,
			wantReceipt: `{"schema":"sabline.receipt/1","program":{"path":"a.vel"},"n":1.5e-7,"x":"a\u003cb"}`},
		{name: "with the redaction's words", wantSpliced: true,
			reply: func(t *testing.T) RunReply {
				return redacted(t, `{"reason":"the import root /srv/root","crash":"/srv/receipts/c.txt"}`)
			},
			wantReceipt: `{"reason":"the import root <import-root>","crash":"<receipts>/c.txt"}`},
		{name: "of another Runner", wantReceipt: "{\n  \"schema\": \"x\"\n}",
			reply: func(*testing.T) RunReply {
				return RunReply{RunID: "r2", Receipt: json.RawMessage("{\n  \"schema\": \"x\"\n}")}
			}},
		{name: "another in its place", wantReceipt: `{"other":true}`,
			reply: func(t *testing.T) RunReply {
				r := redacted(t, rec)
				r.Receipt = json.RawMessage(`{"other":true}`)
				return r
			}},
		{name: "cut from it", wantReceipt: `{"schema":"sabline.receipt/1"}`,
			reply: func(t *testing.T) RunReply {
				r := redacted(t, `{"schema":"sabline.receipt/1"}   `)
				r.Receipt = r.Receipt[:len(`{"schema":"sabline.receipt/1"}`)]
				return r
			}},
		{name: "no receipt", reply: func(*testing.T) RunReply { return RunReply{RunID: "r3"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.reply(t)
			got, err := marshalReply(runReplyJSON(r))
			if err != nil || !json.Valid(got) {
				t.Fatalf("marshalReply: %s, %v; want valid JSON", got, err)
			}
			before, err := json.Marshal(runJSON{runOutputOf(r), r.Receipt})
			if err != nil {
				t.Fatal(err)
			}
			if canon(t, got) != canon(t, before) ||
				!tt.wantSpliced && !bytes.Equal(got, before) {
				t.Errorf("the reply:\n%s\nwant what json.Marshal made:\n%s", got, before)
			}
			var back struct {
				Receipt json.RawMessage `json:"receipt"`
			}
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if tt.wantSpliced && !bytes.Contains(got, r.Receipt) {
				t.Errorf("the reply %s does not hold the receipt's bytes %s", got, r.Receipt)
			}
			if tt.wantReceipt == "" && back.Receipt != nil || tt.wantReceipt != "" &&
				canon(t, back.Receipt) != canon(t, []byte(tt.wantReceipt)) {
				t.Errorf("the reply's receipt %s; want %s", back.Receipt, tt.wantReceipt)
			}
		})
	}
}

// FuzzRunReplyJSON: whatever a run printed and whatever receipt the
// server encoded (compact JSON), the reply written around the redacted
// receipt is valid JSON and decodes to what json.Marshal of runJSON made.
func FuzzRunReplyJSON(f *testing.F) {
	f.Add("hello\n", "", "/srv/root/a.vel:1:2", []byte(`{"program":{"path":"/srv/root/a.vel"},"n":[1,2.5e3,true,null]}`))
	f.Add("<&>\u2028", "\xff", "", []byte(`{"reason":"hierarchy at /sys/fs/cgroup offers none","e":{}}`))
	f.Add("", "", "", []byte(`"/srv/root"`))
	f.Add("", "", "", []byte(`{"a":"\"/srv/root\"","b":"\\/srv/receipts"}`))
	h := newHostFacts("/srv/root", "/srv/receipts")
	f.Fuzz(func(t *testing.T, stdout, stderr, position string, receipt []byte) {
		if len(receipt) > 1<<16 || len(stdout)+len(stderr)+len(position) > 1<<16 || !json.Valid(receipt) {
			return
		}
		var encoded bytes.Buffer // as the server encodes it: compact
		if err := json.Compact(&encoded, receipt); err != nil {
			t.Fatal(err)
		}
		r, err := h.reply(RunReply{RunID: "r", Stdout: stdout, Stderr: stderr, Position: position,
			Stack: []string{position}, Receipt: encoded.Bytes()})
		if err != nil {
			t.Fatalf("reply(%q): %v", receipt, err)
		}
		v := runReplyJSON(r)
		if _, ok := v.(encodedJSON); !ok {
			t.Fatalf("runReplyJSON of a receipt the door redacted gave %T; want it written around it", v)
		}
		got, err := marshalReply(v)
		if err != nil || !json.Valid(got) {
			t.Fatalf("marshalReply: %q, %v; want valid JSON", got, err)
		}
		before, err := json.Marshal(runJSON{runOutputOf(r), r.Receipt})
		if err != nil {
			t.Fatal(err)
		}
		if canon(t, got) != canon(t, before) {
			t.Fatalf("the reply:\n%s\nwant what json.Marshal made:\n%s", got, before)
		}
	})
}
