package door

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/tenant"
)

// TestAuditWithinIsTheRunsAdmission: an audit's within_ceiling says
// whether a run asking for the declared budget is admitted, as that run
// meets it: within the caller's ceiling (its tenant's, else the
// server's) and onto nothing no grant reaches. A budget within the
// server's but outside the tenant's, and one that narrows the server's
// onto its receipts, were said to be within, and each run was refused
// (E328). The controls: budgets within the ceiling are said to be, and
// their runs ran.
func TestAuditWithinIsTheRunsAdmission(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b", "rc"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root,
		Budget: budget.MustParse(root, "io", "fs:read:"+root), Receipts: filepath.Join(root, "rc")})
	tenants := []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme), Allow: []string{"io", "fs:read:" + root + "/a"}},
		{Name: "beta", TokenSHA256: digest(tokenBeta)}, // the server's ceiling
	}
	if err := (tenant.Scope{Cwd: root, Ceiling: r.o.Budget}).Hold(tenants); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Runner: r, Tenants: tenants})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	tests := []struct {
		name       string
		token      string
		allow      string // the budget declared and asked for
		wantWithin bool
	}{
		{name: "acme, within its ceiling", token: tokenAcme, allow: "io,fs:read:" + root + "/a",
			wantWithin: true},
		{name: "acme, within the server's but not its own", token: tokenAcme,
			allow: "io,fs:read:" + root + "/b"},
		{name: "beta, within the server's", token: tokenBeta, allow: "io,fs:read:" + root + "/b",
			wantWithin: true},
		{name: "beta, onto the server's receipts", token: tokenBeta,
			allow: "io,fs:read:" + root + "/rc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "# allow: " + tt.allow + "\nprint(1)\n"
			body, _ := json.Marshal(map[string]any{"source": src})
			resp, v := do(t, ts, "POST", "/v1/audit", "Bearer "+tt.token, string(body))
			if resp.StatusCode != 200 || v["within_ceiling"] != tt.wantWithin {
				t.Fatalf("audit: %d, within_ceiling %v; want 200, %v", resp.StatusCode,
					v["within_ceiling"], tt.wantWithin)
			}
			// The same audit through MCP, with the same token, says the same.
			res, err := connectHTTP(t, ts, tt.token).CallTool(context.Background(),
				&mcp.CallToolParams{Name: "audit", Arguments: map[string]any{"source": src}})
			if err != nil || res.IsError {
				t.Fatalf("the audit over MCP: %v %v", err, res)
			}
			var out AuditOutput
			data, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(data, &out); err != nil || out.Within != tt.wantWithin {
				t.Fatalf("the audit over MCP: %s (%v); want within_ceiling %v", data, err, tt.wantWithin)
			}
			// A run asking for the same budget meets what the audit said.
			body, _ = json.Marshal(map[string]any{"source": src, "allow": strings.Split(tt.allow, ",")})
			resp, v = do(t, ts, "POST", "/v1/run", "Bearer "+tt.token, string(body))
			code, msg := errCode(v)
			switch {
			case tt.wantWithin && (resp.StatusCode != 200 || v["status"] != "ok"):
				t.Errorf("the run: %d %v (%s %q), want it run", resp.StatusCode, v["status"], code, msg)
			case !tt.wantWithin && code != "E328":
				t.Errorf("the run: %d %v (%s %q), want refused E328", resp.StatusCode, v["status"],
					code, msg)
			}
		})
	}
}
