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
