package door

import (
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
