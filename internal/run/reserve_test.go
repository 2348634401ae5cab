package run

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/guard"
)

// TestReserveGuardsWhatItMade: the guard a command-line run's reservation
// returns names the topmost directory the reservation made for the
// receipts, which the guard built beside it could not know of; the
// control: where the receipts directory was there already, nothing made
// is named.
func TestReserveGuardsWhatItMade(t *testing.T) {
	for _, tc := range []struct {
		name     string
		receipts func(dir string) string // the receipts directory, under the test's
		wantMade bool                    // the guard names dir/made, which the reservation made
	}{
		{name: "a directory made", receipts: func(dir string) string {
			return filepath.Join(dir, "made", "receipts")
		}, wantMade: true},
		{name: "nothing made", receipts: func(dir string) string { return dir }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			rc := tc.receipts(dir)
			c := newCommandRun(Run{Program: filepath.Join(dir, "p.vel"), Cwd: dir,
				Budget: budget.MustParse(dir, "io"), Receipts: rc, Guarded: []string{rc}})
			g, err := c.reserve()
			if err != nil {
				t.Fatal(err)
			}
			sabline := map[string]bool{}
			for _, l := range g.Locations() {
				if l.Kind == guard.Sabline {
					sabline[l.Path] = true
				}
			}
			if !sabline[rc] {
				t.Errorf("the receipts directory %s is not among Sabline's locations %v", rc,
					slices.Sorted(maps.Keys(sabline)))
			}
			made := filepath.Join(dir, "made")
			if got := sabline[made]; got != tc.wantMade {
				t.Errorf("%s among Sabline's locations: %v, want %v (%v)", made, got, tc.wantMade,
					slices.Sorted(maps.Keys(sabline)))
			}
		})
	}
}
