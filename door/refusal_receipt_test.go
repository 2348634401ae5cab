package door

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestRefusalNamesItsReceipt: a request the server read but did not run
// leaves a receipt (status usage), and its refusal names that receipt's
// run (run_id), which the client then reads at /v1/receipts/RUN_ID,
// saying the refusal's code: before, only a refusal of the arguments'
// size named it, and the others' receipts could not be found by the
// client. A refusal that leaves none (a body that is not a request)
// names none; the control, a run that ran, is answered with its receipt.
func TestRefusalNamesItsReceipt(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: rc})
	_, ts := newTestServer(t, Config{Runner: r})
	tests := []struct {
		name        string
		body        string
		wantStatus  int
		wantCode    string
		wantReceipt bool
	}{
		{name: "a path not under the root", body: `{"path":"nope.vel"}`,
			wantStatus: http.StatusForbidden, wantCode: string(codes.E316), wantReceipt: true},
		{name: "a budget wider than the server's", body: `{"path":"hello.vel","allow":["fs"]}`,
			wantStatus: http.StatusForbidden, wantCode: string(codes.E328), wantReceipt: true},
		{name: "a malformed item", body: `{"path":"hello.vel","allow":["bogus:x"]}`,
			wantStatus: http.StatusBadRequest, wantCode: string(codes.E301), wantReceipt: true},
		{name: "not a request", body: `{"path":"hello.vel","frob":1}`,
			wantStatus: http.StatusBadRequest, wantCode: string(codes.E301)},
		{name: "a run (the control)", body: `{"path":"hello.vel"}`, wantStatus: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+testToken, tt.body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d (%v), want %d", resp.StatusCode, v, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusOK {
				if id, _ := v["run_id"].(string); id == "" {
					t.Fatalf("the run's reply %v names no run", v)
				}
				return
			}
			code, msg := errCode(v)
			detail, _ := v["error"].(map[string]any)
			id, _ := detail["run_id"].(string)
			if code != tt.wantCode || (id != "") != tt.wantReceipt {
				t.Fatalf("code %q (%s), run_id %q: want %q, a run id %v", code, msg, id, tt.wantCode,
					tt.wantReceipt)
			}
			if id == "" {
				return
			}
			resp, rec := do(t, ts, "GET", "/v1/receipts/"+id, "Bearer "+testToken, "")
			outcome, _ := rec["outcome"].(map[string]any)
			if resp.StatusCode != http.StatusOK || outcome["code"] != tt.wantCode ||
				outcome["status"] != "usage" {
				t.Fatalf("its receipt: status %d, outcome %v; want 200, %s, usage", resp.StatusCode,
					outcome, tt.wantCode)
			}
		})
	}
}

// TestMCPRefusalNamesItsReceipt: a tools/call of run that the server read
// but did not run is a tool error whose text is the error /v1/run
// answers, run_id and all, naming the receipt the refusal left, which the
// client (its token, /mcp and /v1 alike) then reads: before, the tool
// error named no run. A refusal that leaves none (arguments that are not
// a request) names none; the control, a run, names its run.
func TestMCPRefusalNamesItsReceipt(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	hello := filepath.Join(root, "hello.vel")
	if err := os.WriteFile(hello, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
		Budget: budget.MustParse(root, "io"), Receipts: rc})
	_, ts := newTestServer(t, Config{Runner: r})
	for _, tt := range []struct {
		args        string
		wantCode    string
		wantReceipt bool
	}{
		{`{"path":"nope.vel"}`, string(codes.E316), true},
		{`{"path":"../hello.vel"}`, string(codes.E316), true},
		{`{"path":"hello.vel","allow":["fs"]}`, string(codes.E328), true},
		{`{"path":"hello.vel","allow":["bogus:x"]}`, string(codes.E301), true},
		{`{"path":"hello.vel","frob":1}`, string(codes.E301), false},
		{`{"path":"hello.vel"}`, "", true}, // the control: a run
	} {
		_, body := postMCP(t, ts.URL, bearer, `{"jsonrpc":"2.0","id":1,"method":"tools/call",`+
			`"params":{"name":"run","arguments":`+tt.args+`}}`)
		var answer struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &answer); err != nil || len(answer.Result.Content) != 1 {
			t.Fatalf("%s: the answer %s: %v", tt.args, body, err)
		}
		var text struct {
			RunID string `json:"run_id"`
			Error struct {
				Code  string `json:"code"`
				RunID string `json:"run_id"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(answer.Result.Content[0].Text), &text); err != nil {
			t.Fatalf("%s: the tool's text %q: %v", tt.args, answer.Result.Content[0].Text, err)
		}
		id := text.Error.RunID
		if tt.wantCode == "" {
			id = text.RunID
		}
		if answer.Result.IsError != (tt.wantCode != "") || text.Error.Code != tt.wantCode ||
			(id != "") != tt.wantReceipt {
			t.Errorf("%s: the tool's text %s: want code %q, a run id %v", tt.args,
				answer.Result.Content[0].Text, tt.wantCode, tt.wantReceipt)
			continue
		}
		if id == "" || tt.wantCode == "" {
			continue
		}
		resp, rec := do(t, ts, "GET", "/v1/receipts/"+id, "Bearer "+testToken, "")
		outcome, _ := rec["outcome"].(map[string]any)
		if resp.StatusCode != http.StatusOK || outcome["code"] != tt.wantCode ||
			outcome["status"] != "usage" {
			t.Errorf("%s: its receipt: status %d, outcome %v; want 200, %s, usage", tt.args,
				resp.StatusCode, outcome, tt.wantCode)
		}
	}
}
