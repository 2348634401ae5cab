package doorcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/tenant"
)

// TestLoadTenantsOperator: sabline serve reads a tenant's "operator"
// mark from its tenants file, true or false, and refuses a value of
// another type E301, naming the line, the field and what it takes, as
// it refuses a misspelt field. The rows that read are the control: the
// same file, the same entry, only the value differs.
func TestLoadTenantsOperator(t *testing.T) {
	tests := []struct {
		name         string
		operator     string // the field's JSON value; "" leaves it out
		field        string // the field's name; "" is "operator"
		wantOperator bool
		wantErr      string // "" for a file that reads
	}{
		{name: "left out"},
		{name: "false", operator: "false"},
		{name: "true", operator: "true", wantOperator: true},
		{name: "a string", operator: `"true"`,
			wantErr: "line 2: tenants.operator: want true or false, not a JSON string"},
		{name: "a number", operator: "1",
			wantErr: "line 2: tenants.operator: want true or false, not a JSON number"},
		{name: "misspelt", operator: "true", field: "operators",
			wantErr: `unknown field "operators"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry := `{"name": "ops", "token_sha256": "` + tenant.DigestOf("ops-token") + `"`
			if tt.operator != "" {
				field := tt.field
				if field == "" {
					field = "operator"
				}
				entry += `, "` + field + `": ` + tt.operator
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "tenants.json")
			data := "{\"tenants\": [\n" + entry + "}\n]}\n"
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			ts, err := loadTenants(p, doorOptions{}, dir)
			if tt.wantErr != "" {
				if codes.CodeOf(err) != codes.E301 || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("loadTenants = %v; want E301 saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(ts) != 1 || ts[0].Operator != tt.wantOperator {
				t.Errorf("loadTenants = %+v, %v; want one tenant, the operator %v", ts, err,
					tt.wantOperator)
			}
		})
	}
}
