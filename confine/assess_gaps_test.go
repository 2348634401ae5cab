package confine

import (
	"encoding/json"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/darwin"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/confine/windows"
)

// TestAssessmentsAreTheirGaps: every Result an assessment makes, over
// budgets and held layers on each system, has the level its gaps make and
// the reason they render, and survives JSON as a worker sends it.
func TestAssessmentsAreTheirGaps(t *testing.T) {
	checked := 0
	for _, allow := range []string{"io", "io,fs:write:/srv/out", "io,fs", "io,net:example.org:443",
		"io,net", "io,net:udp:10.0.0.2:514", "io,ffi:os", "io,ffi:socket"} {
		for _, strict := range []bool{false, true} {
			p := policyOf(allow, strict)
			var rs []core.Result
			for _, sys := range systems {
				rs = append(rs, Predict(p, sys))
			}
			for abi := 0; abi <= linux.LandlockMaxABI; abi++ {
				rs = append(rs, linux.Assess(p, linux.Held{LandlockABI: abi, Seccomp: abi%2 == 0,
					CapabilitiesFailure: "capset"}))
			}
			rs = append(rs, darwin.Assess(p, darwin.Held{}), windows.Assess(p, windows.Held{Job: true}))
			for _, r := range rs {
				if err := r.Check(); err != nil {
					t.Errorf("%s: %+v: %v", allow, r, err)
				}
				holding := r.Level != core.None
				made := core.ResultOf(holding, r.Layers, r.Gaps)
				if lv := made.Level; lv != r.Level {
					t.Errorf("%s: level %s, its gaps make %s", allow, r.Level, lv)
				}
				if want := made.Reason; r.Reason != want {
					t.Errorf("%s: reason %q, its gaps render %q", allow, r.Reason, want)
				}
				var back core.Result
				b, _ := json.Marshal(r)
				if err := json.Unmarshal(b, &back); err != nil || back.With().Reason != r.Reason {
					t.Errorf("%s: %+v through JSON is %+v (%v)", allow, r, back, err)
				}
				checked++
			}
		}
	}
	t.Logf("%d results checked", checked)
}
