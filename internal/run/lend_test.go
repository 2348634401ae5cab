package run

import (
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// TestCheckLendBounds: the credential locations to lend are refused
// (E301) one past a budget's bounds, budget.MaxItems of them or
// budget.MaxBytes in all, naming the setting; the controls: as many as
// each bound, and none, are taken.
func TestCheckLendBounds(t *testing.T) {
	// locations is n locations of size bytes each.
	locations := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "/" + strings.Repeat("k", size-1)
		}
		return out
	}
	perItem := budget.MaxBytes / 16
	for _, tc := range []struct {
		name    string
		lend    []string
		refused bool
	}{
		{name: "none", lend: nil},
		{name: "as many as the bound", lend: locations(budget.MaxItems, 1)},
		{name: "one past the bound", lend: locations(budget.MaxItems+1, 1), refused: true},
		{name: "as many bytes as the bound", lend: locations(16, perItem)},
		{name: "a byte past the bound", lend: append(locations(16, perItem), "/"), refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLend("--lend-credential", tc.lend)
			if tc.refused != (err != nil) || err != nil && (codes.CodeOf(err) != codes.E301 ||
				!strings.Contains(err.Error(), "--lend-credential")) {
				t.Errorf("CheckLend of %d locations: %v; want refused (E301, naming the setting) %v",
					len(tc.lend), err, tc.refused)
			}
		})
	}
}
