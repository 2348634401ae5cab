package escape

import (
	"path/filepath"
	"testing"
)

// TestCommittedReportRows: each committed kernel report names, for every
// target of the catalogue, the ENFORCES row the catalogue names, so that
// the enforcement table `sabline report` renders from it cites the
// targets of each row as the catalogue has them. The sandbox suite,
// which writes the report, compares outcomes only.
func TestCommittedReportRows(t *testing.T) {
	paths, err := filepath.Glob("../../../tests/confine/kernel-*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no committed kernel report: %v", err)
	}
	rows := map[string]string{}
	for _, tg := range Catalogue {
		rows[tg.ID] = tg.Row
	}
	for _, p := range paths {
		r, err := ReadReport(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range r.Targets {
			if row, ok := rows[tg.ID]; ok && row != tg.Row {
				t.Errorf("%s: target %s names the row %q, the catalogue %q", filepath.Base(p),
					tg.ID, tg.Row, row)
			}
		}
	}
}

// TestReportExpectsAtItsABI: a report records each target's outcome at
// its own Landlock ABI, the older one where the catalogue has it, so
// that a report made on an older kernel is compared with what that
// kernel holds.
func TestReportExpectsAtItsABI(t *testing.T) {
	tg := Target{ID: "t", Expect: landlock("EACCES"),
		Older: []Older{{Below: 3, Expect: seccomp("EPERM"), Why: "w"}}}
	tests := []struct {
		name string
		abi  int
		want Outcome
	}{
		{name: "an older ABI", abi: 2, want: seccomp("EPERM")},
		{name: "the newest", abi: 7, want: landlock("EACCES")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Report
			r.OS, r.LandlockABI = "linux", tt.abi
			r.Add(tg, tt.want, Run{}, nil, nil)
			if got := r.Targets[0].Expected; got == nil || *got != tt.want {
				t.Errorf("expected %v, want %s", got, tt.want)
			}
		})
	}
}
