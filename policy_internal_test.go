package sabline

import (
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
)

// TestPolicyDigest asks for the digest of budgets and modes in turn, some
// twice running and some again after others, and compares each with the
// policy derived anew: the digest kept from the call before is taken only
// for the same items and mode, as they were when it was reckoned.
func TestPolicyDigest(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		b    budget.Budget
		mode core.Mode
	}{
		{"io", budget.MustParse(dir, "io"), core.ModeDefault},
		{"io again", budget.MustParse(dir, "io"), core.ModeDefault},
		{"io, strict", budget.MustParse(dir, "io"), core.ModeStrict},
		{"a read grant", budget.MustParse(dir, "io,fs:read:"+dir), core.ModeDefault},
		{"a host", budget.MustParse(dir, "net:127.0.0.1"), core.ModeDefault},
		{"the host at a port", budget.MustParse(dir, "net:127.0.0.1:80"), core.ModeDefault},
		{"the host again", budget.MustParse(dir, "net:127.0.0.1"), core.ModeDefault},
		{"io at last", budget.MustParse(dir, "io"), core.ModeDefault},
	}
	derived := map[string]bool{}
	for _, tt := range tests {
		want := core.OSPolicy(tt.b, core.Options{Mode: tt.mode}).SHA256()
		derived[want] = true
		if got := policyDigest(tt.b, tt.mode); got != want {
			t.Errorf("%s: digest %s, want %s (the policy derived anew)", tt.name, got, want)
		}
	}
	if len(derived) != 5 {
		t.Errorf("the cases derive %d policies, want 5: they do not tell a kept digest from a "+
			"wrong one", len(derived))
	}

	// A caller that changes its budget's items in place between two
	// runs: the digest kept is of the items as they were.
	b := budget.MustParse(dir, "net:127.0.0.1:80")
	policyDigest(b, core.ModeDefault)
	b.Items[0].Port = 443
	want := core.OSPolicy(b, core.Options{Mode: core.ModeDefault}).SHA256()
	if got := policyDigest(b, core.ModeDefault); got != want {
		t.Errorf("the items changed in place: digest %s, want %s (the policy derived anew)", got, want)
	}
}
