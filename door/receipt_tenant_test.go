package door

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/tenant"
)

// TestReceiptOfNoTenantIsNoTenants: a receipt stored without a tenant (a
// command-line run, a run of a door without tenants, in the same
// receipts directory) is not served to any tenant's token, on
// /v1/receipts/{id}: it is 404, as a run that never was, and so is
// another tenant's run. The controls: a tenant's own run, read from the
// store (the door's memory of runs never held it), is served to it, and
// the run of no tenant is there for a reader of no tenant.
func TestReceiptOfNoTenantIsNoTenants(t *testing.T) {
	root := t.TempDir()
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Budget: budget.MustParse(root, "io"), Receipts: t.TempDir()})
	stored := map[string]string{} // run id by its tenant, "" for none
	for _, tenant := range []string{"", "acme"} {
		reply, err := r.Run(context.Background(), RunRequest{Source: "print(1)", Tenant: tenant})
		if err != nil || reply.Status != "ok" {
			t.Fatalf("the run of tenant %q: %+v, %v", tenant, reply, err)
		}
		stored[tenant] = reply.RunID
	}
	if _, err := r.Receipt(context.Background(), "", stored[""]); err != nil {
		t.Fatalf("the run of no tenant, read as no tenant: %v; want its receipt", err)
	}
	s, err := New(Config{Runner: r, Tenants: []tenant.Tenant{
		{Name: "acme", TokenSHA256: digest(tokenAcme)},
		{Name: "beta", TokenSHA256: digest(tokenBeta)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	tests := []struct {
		name       string
		token      string
		runOf      string // whose run is read: a tenant, "" for none
		wantStatus int
	}{
		{name: "acme reads its own run", token: tokenAcme, runOf: "acme", wantStatus: http.StatusOK},
		{name: "acme reads the run of no tenant", token: tokenAcme, runOf: "", wantStatus: http.StatusNotFound},
		{name: "beta reads the run of no tenant", token: tokenBeta, runOf: "", wantStatus: http.StatusNotFound},
		{name: "beta reads acme's run", token: tokenBeta, runOf: "acme", wantStatus: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := stored[tt.runOf]
			resp, v := do(t, ts, "GET", "/v1/receipts/"+id, "Bearer "+tt.token, "")
			if resp.StatusCode != tt.wantStatus {
				code, msg := errCode(v)
				t.Fatalf("GET /v1/receipts/%s: %d (the receipt of run %v; error %s %q), want %d", id, resp.StatusCode, v["run_id"], code, msg, tt.wantStatus)
			}
			if tt.wantStatus == http.StatusOK && v["run_id"] != id {
				t.Errorf("GET /v1/receipts/%s: the receipt of run %v", id, v["run_id"])
			}
		})
	}
	for _, tenant := range []string{"acme", "beta"} {
		if _, err := r.Receipt(context.Background(), tenant, stored[""]); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Receipt of the run of no tenant, as tenant %s: %v; want not found", tenant, err)
		}
	}
}
