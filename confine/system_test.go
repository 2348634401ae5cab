package confine

import (
	"runtime"
	"slices"
	"testing"
)

func TestSystems(t *testing.T) {
	if want := []System{Linux, Darwin, Windows}; !slices.Equal(Systems, want) {
		t.Errorf("Systems = %v, want %v", Systems, want)
	}
	for _, tc := range []struct {
		name      string
		goos      string
		want      System
		wantKnown bool
		wantTitle string
	}{
		{name: "linux", goos: "linux", want: Linux, wantKnown: true, wantTitle: "Linux"},
		{name: "macOS", goos: "darwin", want: Darwin, wantKnown: true, wantTitle: "macOS"},
		{name: "windows", goos: "windows", want: Windows, wantKnown: true, wantTitle: "Windows"},
		{name: "a system with no confinement", goos: "plan9", want: "plan9", wantTitle: "plan9"},
		{name: "no name", goos: "", want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, known := SystemOf(tc.goos)
			if got != tc.want || known != tc.wantKnown || got.Title() != tc.wantTitle {
				t.Errorf("SystemOf(%q) = %q (%q), %v; want %q (%q), %v", tc.goos, got, got.Title(), known, tc.want, tc.wantTitle, tc.wantKnown)
			}
		})
	}
	sys, known := ThisSystem()
	if string(sys) != runtime.GOOS || known != slices.Contains(Systems, sys) {
		t.Errorf("ThisSystem() = %q, %v on %s", sys, known, runtime.GOOS)
	}
}

// TestRowsHaveEverySystem: every row of ENFORCES has one cell per system
// of Systems and none for another; PartlyOps names only systems whose
// cell holds partly.
func TestRowsHaveEverySystem(t *testing.T) {
	for _, r := range Enforces() {
		for sys := range r.Cells {
			if !slices.Contains(Systems, sys) {
				t.Errorf("%s: a cell for %q, which is not in Systems", r.ID, sys)
			}
		}
		for _, sys := range Systems {
			if _, ok := r.Cells[sys]; !ok {
				t.Errorf("%s: no cell for %s", r.ID, sys)
			}
		}
		for sys, h := range r.PartlyOps {
			if c := r.Cells[sys]; c.Holds != HoldsPartly {
				t.Errorf("%s: PartlyOps names %s, whose cell holds %s, not partly", r.ID, sys, c.Holds)
			}
			if got := r.OpsHold(sys); got != h {
				t.Errorf("%s: OpsHold(%s) = %s, want PartlyOps's %s", r.ID, sys, got, h)
			}
		}
	}
}
