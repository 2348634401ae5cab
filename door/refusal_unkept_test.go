package door

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestRefusalWithNoReceiptNamesNone: a refusal whose receipt the server
// could not keep (its journal takes no records: the receipts directory
// removed, its file system full) names no run, over /v1/run and /mcp: a
// run that could not reserve its receipt (E317), a malformed allow
// (E301) and an allow the pool refuses as wider than its budget (E328)
// alike. Before, each named the run id of a receipt that was nowhere on
// the disk, and the server answered a lookup of it from its memory as
// if it were kept. E317's advice is the client's, naming no flag of the
// server's (--receipts); another code's advice is its own, not E317's
// (cannotKeep). The control, before the journal
// fails: the same requests run and are refused, each naming its run,
// whose receipt is on the disk.
func TestRefusalWithNoReceiptNamesNone(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	hello := filepath.Join(root, "hello.vel")
	if err := os.WriteFile(hello, []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: rc, Stderr: io.Discard})
	_, ts := newTestServer(t, Config{Runner: r})
	const (
		run       = `{"path":"hello.vel"}`
		malformed = `{"path":"hello.vel","allow":["bogus:x"]}`
		wider     = `{"path":"hello.vel","allow":["io","net:127.0.0.1:9"]}`
	)
	onDisk := func(id string) string {
		t.Helper()
		found, err := receipt.FindRun(rc, id)
		if err != nil {
			t.Fatalf("run %s: no receipt on the disk: %v", id, err)
		}
		return string(found.Receipt.Outcome.Code)
	}
	// The control: each names its run, whose receipt is on the disk.
	resp, v := do(t, ts, "POST", "/v1/run", bearer, run)
	if id, _ := v["run_id"].(string); resp.StatusCode != http.StatusOK || id == "" ||
		onDisk(id) != "" {
		t.Fatalf("the control run: %d %v", resp.StatusCode, v)
	}
	resp, v = do(t, ts, "POST", "/v1/run", bearer, malformed)
	detail, _ := v["error"].(map[string]any)
	if id, _ := detail["run_id"].(string); resp.StatusCode != http.StatusBadRequest || id == "" ||
		onDisk(id) != string(codes.E301) {
		t.Fatalf("the control refusal: %d %v", resp.StatusCode, v)
	}
	resp, v = do(t, ts, "POST", "/v1/run", bearer, wider)
	detail, _ = v["error"].(map[string]any)
	if id, _ := detail["run_id"].(string); resp.StatusCode != http.StatusForbidden || id == "" ||
		onDisk(id) != string(codes.E328) {
		t.Fatalf("the control refusal by the pool: %d %v", resp.StatusCode, v)
	}

	store, err := receipt.OpenStore(rc) // the pool's: one store a directory in a process
	if err != nil {
		t.Fatal(err)
	}
	store.Journal().Close() // every append after fails
	for _, tt := range []struct {
		body       string
		wantStatus int
		wantCode   codes.Code
	}{
		{run, http.StatusInternalServerError, codes.E317},
		{malformed, http.StatusBadRequest, codes.E301},
		{wider, http.StatusForbidden, codes.E328},
	} {
		resp, v := do(t, ts, "POST", "/v1/run", bearer, tt.body)
		detail, _ := v["error"].(map[string]any)
		code, _ := detail["code"].(string)
		if resp.StatusCode != tt.wantStatus || code != string(tt.wantCode) {
			t.Errorf("%s: %d %v; want %d, %s", tt.body, resp.StatusCode, v, tt.wantStatus, tt.wantCode)
		}
		if id, ok := detail["run_id"]; ok {
			t.Errorf("%s: the refusal names run %v, whose receipt was not kept: %v", tt.body, id, v)
		}
		if do, _ := detail["do"].(string); tt.wantCode == codes.E317 &&
			(do != cannotKeepDo || strings.Contains(do, "--")) {
			t.Errorf("%s: what to do %q: want the client's %q", tt.body, do, cannotKeepDo)
		} else if tt.wantCode != codes.E317 && do == cannotKeepDo {
			t.Errorf("%s: what to do %q: want %s's own, not a receipt's", tt.body, do, tt.wantCode)
		}
		_, body := postMCP(t, ts.URL, bearer, `{"jsonrpc":"2.0","id":1,"method":"tools/call",`+
			`"params":{"name":"run","arguments":`+tt.body+`}}`)
		var answer struct {
			Result struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal(body, &answer); err != nil || len(answer.Result.Content) != 1 ||
			!answer.Result.IsError {
			t.Fatalf("%s over /mcp: %s: %v", tt.body, body, err)
		}
		var text errorBody
		if err := json.Unmarshal([]byte(answer.Result.Content[0].Text), &text); err != nil {
			t.Fatal(err)
		}
		if text.Error.Code != string(tt.wantCode) || text.Error.RunID != "" {
			t.Errorf("%s over /mcp: %s; want %s naming no run", tt.body, answer.Result.Content[0].Text,
				tt.wantCode)
		}
	}
}
