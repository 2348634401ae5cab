package doorcmd

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sabline/sabline/receipt"
)

// TestServeHidesTheRunOfNoTenant is the Go twin of what
// TestTypeScriptClient's client checks over HTTP without needing node: a
// command-line run, whose receipt names no tenant, lies in the receipts
// directory of a sabline serve, and the server's token (a tenant of the
// server) can read it neither on /v1/receipts/{id} (404) nor as the MCP
// resource sabline://receipts/{id} (Resource not found). The controls:
// the run is in the directory (receipt.FindRun reads it), and a run of
// the token's own is read both ways.
func TestServeHidesTheRunOfNoTenant(t *testing.T) {
	s := startServe(t)
	other := commandLineRun(t, sablineBin(t), s.rc)
	if run, err := receipt.FindRun(s.rc, other); err != nil || run.Tenant != "" {
		t.Fatalf("the command-line run %s in the server's directory: %+v, %v; want its receipt, of no tenant", other, run.Receipt, err)
	}
	st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`)
	own, _ := v["run_id"].(string)
	if st != 200 || own == "" {
		t.Fatalf("a run of the token's own: %d %v", st, v)
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{s.token}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tests := []struct {
		name      string
		id        string
		wantFound bool
	}{
		{name: "the token's own run", id: own, wantFound: true},
		{name: "the command-line run", id: other, wantFound: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, v := s.do(t, "GET", "/v1/receipts/"+tt.id, s.token, "")
			if found := st == 200 && v["run_id"] == tt.id; found != tt.wantFound || (!found && st != 404) {
				t.Errorf("GET /v1/receipts/%s: %d, the receipt of run %v; want found %v (else 404)", tt.id, st, v["run_id"], tt.wantFound)
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "sabline://receipts/" + tt.id})
			var rec receipt.Receipt
			if err == nil && len(res.Contents) == 1 {
				err = json.Unmarshal([]byte(res.Contents[0].Text), &rec)
			}
			if tt.wantFound && (err != nil || rec.RunID != tt.id) {
				t.Errorf("resources/read of %s: run %q, %v; want its receipt", tt.id, rec.RunID, err)
			}
			if !tt.wantFound && (err == nil || !strings.Contains(err.Error(), "Resource not found")) {
				t.Errorf("resources/read of %s: run %q, %v; want Resource not found", tt.id, rec.RunID, err)
			}
		})
	}
}
