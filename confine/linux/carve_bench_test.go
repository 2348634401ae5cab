package linux

import (
	"os"
	"testing"

	"github.com/sabline/sabline/guard"
)

// BenchmarkCarveLandlockHere carves a rule of / around the guarded
// locations of this machine, reading its directories: the carving's own
// cost in a worker whose budget grants every path, rules not yet added.
func BenchmarkCarveLandlockHere(b *testing.B) {
	home, _ := os.UserHomeDir()
	set := guard.Build(guard.Inputs{Home: home}, guard.OS())
	plan := LandlockRuleset{Rules: []LandlockRule{{Path: "/", Access: landlockReadRights, Grant: true}}}
	var c Carving
	for b.Loop() {
		_, c = CarveLandlock(plan, set.CarveOuts(), os.ReadDir, MaxCarvedRules)
	}
	b.ReportMetric(float64(c.Added), "rules")
	b.ReportMetric(float64(len(set.CarveOuts())), "carve-outs")
}
