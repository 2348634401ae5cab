package door

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/program"
)

// TestLongAllowKeepsItsReceipt: a request's allow is held to the
// budget's bounds (budget.MaxBytes), and its refusal keeps the receipt
// it names. Items whose canonical text is exactly the bound, wider than
// the server's budget, are refused E328 with their receipt (the
// control); an item of 9 MiB, within the body's bound, is refused E301,
// with its receipt, and advice that is not the command line's. Before, it was refused E328, quoting the 9 MiB item
// twice, and named a receipt the journal never held (a record past its
// 8 MiB bound): the client read 404 for the run id its refusal gave.
func TestLongAllowKeepsItsReceipt(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: rc})
	_, ts := newTestServer(t, Config{Runner: r})
	// items are distinct read grants whose canonical text, joined by
	// commas, is size bytes: each a path within the bounds a path may
	// have (names of 200 bytes, 4,000 bytes in all at most).
	items := func(size int) []string {
		const most = 4000
		n := (size+1)/(most+1) + 1
		var out []string
		for i := range n {
			head := fmt.Sprintf("fs:read:/x/%d", i)
			q, r := (size-(n-1))/n, (size-(n-1))%n
			l := q
			if i < r {
				l++
			}
			path := strings.Repeat("/"+strings.Repeat("a", 199), most/200+1)[:l-len(head)]
			path = strings.TrimRight(path, "/")
			out = append(out, head+path+strings.Repeat("b", l-len(head)-len(path)))
		}
		return out
	}
	for _, tt := range []struct {
		name       string
		items      []string
		wantStatus int
		wantCode   codes.Code
	}{
		{"at the bound", items(budget.MaxBytes), http.StatusForbidden, codes.E328},
		{"9 MiB", []string{"fs:read:/x/" + strings.Repeat("a", 9<<20)}, http.StatusBadRequest,
			codes.E301},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(strings.Join(tt.items, ",")); tt.wantCode == codes.E328 &&
				got != budget.MaxBytes {
				t.Fatalf("the items are %d bytes as written, want %d", got, budget.MaxBytes)
			}
			body, _ := json.Marshal(map[string]any{"path": "hello.vel", "allow": tt.items})
			resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+testToken, string(body))
			code, msg := errCode(v)
			detail, _ := v["error"].(map[string]any)
			id, _ := detail["run_id"].(string)
			advice, _ := detail["do"].(string)
			if resp.StatusCode != tt.wantStatus || code != string(tt.wantCode) || id == "" ||
				strings.Contains(advice, "--help") {
				t.Fatalf("status %d, code %s (%.200s), run_id %q, do %q: want %d, %s, a run id, "+
					"and advice for a client", resp.StatusCode, code, msg, id, advice,
					tt.wantStatus, tt.wantCode)
			}
			resp, rec := do(t, ts, "GET", "/v1/receipts/"+id, "Bearer "+testToken, "")
			outcome, _ := rec["outcome"].(map[string]any)
			if resp.StatusCode != http.StatusOK || outcome["code"] != string(tt.wantCode) {
				t.Fatalf("its receipt %s: status %d, outcome %v; want 200, %s", id,
					resp.StatusCode, outcome, tt.wantCode)
			}
		})
	}
}

// TestStdinPastItsBound: a run request's stdin is at most 4 MiB
// (wire.MaxPoolInputBytes, below the body's bound): at the bound the run
// reads it all (the control); a byte more is refused E301 with its
// receipt, and the advice names the bound and what a client can do.
// Before, the advice was the command line's ("`sabline --help` shows the
// flags"), which names nothing a door's client can change, and
// docs/serve.md named no bound.
func TestStdinPastItsBound(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: rc})
	_, ts := newTestServer(t, Config{Runner: r})
	const bound = 4 << 20
	for _, n := range []int{bound, bound + 1} {
		body, _ := json.Marshal(map[string]any{"source": "print(len(io.read_all()))",
			"stdin": strings.Repeat("x", n)})
		resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+testToken, string(body))
		if n == bound {
			if out, _ := v["stdout"].(string); resp.StatusCode != http.StatusOK ||
				strings.TrimSpace(out) != "4194304" {
				t.Fatalf("stdin of %d bytes: status %d, printed %q (%v); want it read whole", n,
					resp.StatusCode, out, v["message"])
			}
			continue
		}
		code, msg := errCode(v)
		detail, _ := v["error"].(map[string]any)
		id, _ := detail["run_id"].(string)
		advice, _ := detail["do"].(string)
		if resp.StatusCode != http.StatusBadRequest || code != string(codes.E301) || id == "" ||
			strings.Contains(advice, "--help") || !strings.Contains(advice, "4 MiB") {
			t.Fatalf("stdin of %d bytes: status %d, code %s (%s), run_id %q, do %q: want 400, "+
				"E301, a run id, and advice naming the bound", n, resp.StatusCode, code, msg, id,
				advice)
		}
		resp, rec := do(t, ts, "GET", "/v1/receipts/"+id, "Bearer "+testToken, "")
		if outcome, _ := rec["outcome"].(map[string]any); resp.StatusCode != http.StatusOK ||
			outcome["code"] != string(codes.E301) {
			t.Fatalf("its receipt %s: status %d, outcome %v; want 200, E301", id, resp.StatusCode,
				outcome)
		}
	}
}

// TestAuditHoldsTheProgramBound: /v1/audit holds a program's text to
// program.MaxBytes, as a run of it and sabline audit do: at the bound it
// is audited (the control), a byte past it is refused E316. Before, the
// door audited it, and said a run of it would be admitted, which it was
// not (E316).
func TestAuditHoldsTheProgramBound(t *testing.T) {
	root := t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: t.TempDir()})
	_, ts := newTestServer(t, Config{Runner: r})
	for _, n := range []int{program.MaxBytes, program.MaxBytes + 1} {
		src := "# allow: io\n#" + strings.Repeat("a", n-len("# allow: io\n#\n")) + "\n"
		body, _ := json.Marshal(map[string]any{"source": src})
		resp, v := do(t, ts, "POST", "/v1/audit", "Bearer "+testToken, string(body))
		code, msg := errCode(v)
		if n == program.MaxBytes {
			if resp.StatusCode != http.StatusOK || v["budget"] != "io" {
				t.Errorf("a program of %d bytes: status %d, %v %s; want it audited", n,
					resp.StatusCode, code, msg)
			}
			continue
		}
		if resp.StatusCode != http.StatusForbidden || code != string(codes.E316) {
			t.Errorf("a program of %d bytes: status %d, %q %s; want 403, E316", n,
				resp.StatusCode, code, msg)
		}
	}
}

// TestRefusalMessageAsItsReceipt: a refusal's reply says what its
// receipt's outcome says, the message within the bound a receipt keeps
// (codes.MaxMessageBytes), and past it the same beginning and the same
// count of bytes left out. An item of 60,000 control characters, within
// the budget's bound, is quoted escaped, in 480,000 bytes: before, the
// reply quoted all of them where the receipt said it cut them. The
// control: a short malformed item, quoted whole in both. The server's
// log line of the refusal is bounded alike: it was the 480,000 bytes too.
func TestRefusalMessageAsItsReceipt(t *testing.T) {
	root, rc := t.TempDir(), t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"),
		Receipts: rc})
	var mu sync.Mutex
	var logged []string
	_, ts := newTestServer(t, Config{Runner: r, Logf: func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		logged = append(logged, fmt.Sprintf(f, a...))
	}})
	for _, tt := range []struct {
		name    string
		item    string
		wantCut bool
	}{
		{"quoted past the bound", strings.Repeat("\x01", 60000), true},
		{"quoted whole", "fs:frob", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			logged = nil
			mu.Unlock()
			body, _ := json.Marshal(map[string]any{"source": "print(1)", "allow": []string{tt.item}})
			resp, v := do(t, ts, "POST", "/v1/run", "Bearer "+testToken, string(body))
			code, msg := errCode(v)
			detail, _ := v["error"].(map[string]any)
			id, _ := detail["run_id"].(string)
			if resp.StatusCode != http.StatusBadRequest || code != string(codes.E301) || id == "" {
				t.Fatalf("status %d, code %s, run_id %q: want 400, E301 and a run id",
					resp.StatusCode, code, id)
			}
			resp, rec := do(t, ts, "GET", "/v1/receipts/"+id, "Bearer "+testToken, "")
			outcome, _ := rec["outcome"].(map[string]any)
			kept, _ := outcome["message"].(string)
			cut := strings.HasSuffix(msg, " bytes more)")
			if resp.StatusCode != http.StatusOK || msg != kept || len(msg) > codes.MaxMessageBytes ||
				cut != tt.wantCut {
				t.Errorf("a reply's message of %d bytes ending %q, its receipt's of %d ending %q: "+
					"want the same, at most %d bytes, cut %v", len(msg), msg[max(0, len(msg)-30):],
					len(kept), kept[max(0, len(kept)-30):], codes.MaxMessageBytes, tt.wantCut)
			}
			mu.Lock()
			defer mu.Unlock()
			said := 0
			for _, line := range logged {
				if !strings.Contains(line, "refused: E301") {
					continue
				}
				said++
				if len(line) > 4*codes.MaxMessageBytes ||
					strings.Contains(line, " bytes more)") != tt.wantCut {
					t.Errorf("the log's line of the refusal is %d bytes, ending %q: want at most %d, "+
						"cut %v", len(line), line[max(0, len(line)-30):], 4*codes.MaxMessageBytes,
						tt.wantCut)
				}
			}
			if said != 1 {
				t.Errorf("the log has %d lines of the refusal; want 1: %.300q", said, logged)
			}
		})
	}
}
