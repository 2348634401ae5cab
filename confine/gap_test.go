package confine

import (
	"encoding/json"
	"testing"
)

// TestResultWith: a gap added to a Result makes its level and reason again
// from every gap it has. An unheld limit lowers full to partial and the
// reason then names the limits alone; a held fact or a note leaves the
// level; none stays none whatever is added; and the reason says the kinds
// in one order, the limits first, whatever order they were added in.
func TestResultWith(t *testing.T) {
	unheld := Gap{Layer: LayerMemory, Kind: GapUnheld, Text: "the memory limit could not be set"}
	held := Gap{Layer: LayerMemory, Kind: GapHeld, Text: "the memory limit of 64 MB is held by a cgroup"}
	note := Gap{Layer: layerLanguage, Kind: GapNote, Text: "The module x: its own I/O"}
	mode := Gap{Layer: layerLanguage, Kind: GapMode, Text: "--confine strict"}
	full := resultOf(true, []string{LayerSeccomp}, nil)
	none := resultOf(false, nil, []Gap{{Layer: layerLanguage, Kind: GapUnheld, Text: "off"}})
	tests := []struct {
		name       string
		from       Result
		add        []Gap
		wantLevel  Level
		wantReason string
	}{
		{name: "nothing added", from: full, wantLevel: Full, wantReason: fullReason},
		{name: "a held fact", from: full, add: []Gap{held}, wantLevel: Full,
			wantReason: fullReason + "; " + held.Text},
		{name: "an unheld limit", from: full, add: []Gap{held, unheld}, wantLevel: Partial,
			wantReason: unheld.Text + "; " + held.Text},
		{name: "every kind, held first", from: full, add: []Gap{held, note, mode, unheld},
			wantLevel:  Partial,
			wantReason: unheld.Text + " (" + mode.Text + "). " + note.Text + "; " + held.Text},
		{name: "none stays none", from: none, add: []Gap{held}, wantLevel: None,
			wantReason: "off; " + held.Text},
		{name: "none with a limit", from: none, add: []Gap{unheld}, wantLevel: None,
			wantReason: "off; " + unheld.Text},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.from.With(tt.add...)
			if r.Level != tt.wantLevel || r.Reason != tt.wantReason {
				t.Errorf("With = %s %q; want %s %q", r.Level, r.Reason, tt.wantLevel, tt.wantReason)
			}
			if err := r.Check(); err != nil {
				t.Errorf("Check of a Result With made: %v", err)
			}
			if len(tt.from.Gaps) > 0 && len(tt.add) > 0 && &r.Gaps[0] == &tt.from.Gaps[0] {
				t.Error("With shares the gaps of the Result it was given")
			}
		})
	}
}

// TestResultCheck: a Result read from a worker or a receipt is believed
// only when its gaps could have made its level; the controls are the
// same Results as an assessment makes them.
func TestResultCheck(t *testing.T) {
	unheld := Gap{Layer: LayerSeccomp, Kind: GapUnheld, Text: "seccomp was not installed"}
	many := make([]Gap, maxGaps+1)
	for i := range many {
		many[i] = Gap{Layer: LayerApply, Kind: GapHeld, Text: "x"}
	}
	tests := []struct {
		name    string
		r       Result
		wantErr error
	}{
		{name: "full with no gap", r: Result{Level: Full}},
		{name: "partial with an unheld limit", r: Result{Level: Partial, Gaps: []Gap{unheld}}},
		{name: "none with anything", r: Result{Level: None, Gaps: []Gap{unheld}}},
		{name: "as many gaps as may be", r: Result{Level: Full, Gaps: many[:maxGaps]}},
		{name: "full with an unheld limit", r: Result{Level: Full, Gaps: []Gap{unheld}},
			wantErr: errGapLevel},
		{name: "partial with none unheld", r: Result{Level: Partial}, wantErr: errGapLevel},
		{name: "a kind of no name", r: Result{Level: Full, Gaps: []Gap{{Kind: "fine"}}},
			wantErr: errGapKind},
		{name: "one gap too many", r: Result{Level: Full, Gaps: many}, wantErr: errTooManyGaps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.r.Check(); err != tt.wantErr {
				t.Errorf("Check = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestAssessmentsAreTheirGaps: every Result an assessment makes, over
// budgets and held layers on each system, has the level its gaps make and
// the reason they render, and survives JSON as a worker sends it.
func TestAssessmentsAreTheirGaps(t *testing.T) {
	checked := 0
	for _, allow := range []string{"io", "io,fs:write:/srv/out", "io,fs", "io,net:example.org:443",
		"io,net", "io,net:udp:10.0.0.2:514", "io,ffi:os", "io,ffi:socket"} {
		for _, strict := range []bool{false, true} {
			p := policyOf(allow, strict)
			var rs []Result
			for _, sys := range Systems {
				rs = append(rs, Predict(p, sys))
			}
			for abi := 0; abi <= LandlockMaxABI; abi++ {
				rs = append(rs, assessLinux(p, linuxHeld{LandlockABI: abi, Seccomp: abi%2 == 0,
					CapabilitiesFailure: "capset"}))
			}
			rs = append(rs, assessDarwin(p, darwinHeld{}), assessWindows(p, windowsHeld{Job: true}))
			for _, r := range rs {
				if err := r.Check(); err != nil {
					t.Errorf("%s: %+v: %v", allow, r, err)
				}
				holding := r.Level != None
				if lv := levelOf(holding, r.Gaps); lv != r.Level {
					t.Errorf("%s: level %s, its gaps make %s", allow, r.Level, lv)
				}
				if want := render(r.Level, r.Gaps); r.Reason != want {
					t.Errorf("%s: reason %q, its gaps render %q", allow, r.Reason, want)
				}
				var back Result
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
