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

// TestCommittedReportSeccompAlone: a worker held by seccomp alone has no
// Landlock ruleset, and its filter is that of a ruleset below every ABI
// (it refuses truncation, which Landlock holds from ABI 3 only). So a
// target the catalogue expects the filter to stop at Landlock ABI 1 is
// stopped by seccomp alone, wherever the committed Linux report measured
// it. The sandbox suite measures every layer alone at the full size only:
// the report said seccomp alone let the two truncation targets through,
// written before the filter refused truncation, and the suite at the full
// size failed on it while the default size passed. The control: a target
// the filter does not stop at ABI 1 is among those measured.
func TestCommittedReportSeccompAlone(t *testing.T) {
	r, err := ReadReport("../../../tests/confine/kernel-linux.json")
	if err != nil {
		t.Fatal(err)
	}
	catalogue := map[string]Target{}
	for _, tg := range Catalogue {
		catalogue[tg.ID] = tg
	}
	var held, other int
	for _, rt := range r.Targets {
		tg, ok := catalogue[rt.ID]
		stopped, measured := rt.LayersAlone["seccomp"]
		if !ok || !measured {
			continue
		}
		if tg.ExpectAt(1).StoppedBy != BySeccomp {
			other++
			continue
		}
		held++
		if !stopped {
			t.Errorf("%s: the catalogue expects seccomp to stop it at Landlock ABI 1 (%s), "+
				"the committed report says seccomp alone does not", rt.ID, tg.ExpectAt(1))
		}
	}
	if held == 0 || other == 0 {
		t.Errorf("seccomp alone measured for %d targets the filter stops at ABI 1 and %d others; "+
			"want some of each", held, other)
	}
}

// TestReportExpectsOnLinuxOnly: a report records a target's expected
// outcome on Linux (the control) and none on another system, whose
// layers the outcomes do not name.
func TestReportExpectsOnLinuxOnly(t *testing.T) {
	tg := Target{ID: "t", Expect: landlock("EACCES")}
	for _, system := range []string{"linux", "darwin", "windows"} {
		var r Report
		r.OS, r.LandlockABI = system, 7
		r.Add(tg, tg.Expect, Run{}, nil, nil)
		if got := r.Targets[0].Expected; (got != nil) != (system == "linux") {
			t.Errorf("a report of %s: expected %v, want one on linux alone", system, got)
		}
	}
}
