package door

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestTenantCeilingThroughALink: a tenant's run whose budget names,
// beneath the tenant's ceiling (fs:read:data), a link that leads out of
// it (data/lnk, to ../other) is wider than the ceiling where it leads,
// and is refused (E328, naming the tenant; nothing read). The pool's own
// budget (the import root) holds other/, so only the tenant's ceiling,
// held where its paths lead, keeps the run from reading what the
// tenant's ceiling does not reach. The control: a directory within the
// ceiling (data/in) runs, and its file is read.
func TestTenantCeilingThroughALink(t *testing.T) {
	root := t.TempDir()
	data, other := filepath.Join(root, "data"), filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(data, "in"), other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WriteFile(t, filepath.Join(other, "secret.txt"), "secret-of-another-7d1a")
	testkit.WriteFile(t, filepath.Join(data, "in", "x.txt"), "within")
	if err := os.Symlink("../other", filepath.Join(data, "lnk")); err != nil {
		t.Fatal(err)
	}
	r := newPoolRunner(t, sabline.PoolOptions{ImportRoot: root, Confine: sabline.ConfineOff,
		Budget: budget.MustParse(root, "io,fs:read:"+root), Receipts: t.TempDir()})
	ceiling := budget.MustParse(root, "io,fs:read:data")
	tests := []struct {
		name, allow, path string
		wantCode          codes.Code
	}{
		{"through the link out", "fs:read:data/lnk", "data/lnk/secret.txt", codes.E328},
		{"a directory within", "fs:read:data/in", "data/in/x.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := r.Run(t.Context(), RunRequest{
				Source: "print(fs.read(\"" + filepath.Join(root, tt.path) + "\"))\n",
				Allow:  []string{"io", tt.allow}, Tenant: "acme", Ceiling: &ceiling})
			if strings.Contains(reply.Stdout, "secret-of-another") {
				t.Errorf("the run read %q, outside its tenant's ceiling", reply.Stdout)
			}
			switch {
			case tt.wantCode == "" && (err != nil || reply.Stdout != "within\n"):
				t.Errorf("allow %s: %q, %v; want it run and %q", tt.allow, reply.Stdout, err,
					"within\n")
			case tt.wantCode != "" && (codes.CodeOf(err) != tt.wantCode ||
				!strings.Contains(err.Error(), "ceiling of tenant acme")):
				t.Errorf("allow %s: %q, %v; want %s naming the tenant's ceiling", tt.allow,
					reply.Stdout, err, tt.wantCode)
			}
		})
	}
}
