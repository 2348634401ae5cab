package core

import (
	"testing"
)

// TestResultWith: a gap added to a Result makes its level and reason again
// from every gap it has. An unheld limit lowers full to partial and the
// reason then names the limits alone; a held fact or a note leaves the
// level; none stays none whatever is added; and the reason says the kinds
// in one order, the limits first, whatever order they were added in.
// Except of the memory layer gives what With of the other gaps gives.
func TestResultWith(t *testing.T) {
	unheld := Gap{Layer: LayerMemory, Kind: GapUnheld, Text: "the memory limit could not be set"}
	held := Gap{Layer: LayerMemory, Kind: GapHeld, Text: "the memory limit of 64 MB is held by a cgroup"}
	note := Gap{Layer: LayerLanguage, Kind: GapNote, Text: "The module x: its own I/O"}
	mode := Gap{Layer: LayerLanguage, Kind: GapMode, Text: "--confine strict"}
	full := ResultOf(true, []string{LayerSeccomp}, nil)
	none := ResultOf(false, nil, []Gap{{Layer: LayerLanguage, Kind: GapUnheld, Text: "off"}})
	tests := []struct {
		name       string
		from       Result
		add        []Gap
		wantLevel  Level
		wantReason string
	}{
		{name: "nothing added", from: full, wantLevel: Full, wantReason: FullReason},
		{name: "a held fact", from: full, add: []Gap{held}, wantLevel: Full,
			wantReason: FullReason + "; " + held.Text},
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
			// Except takes the memory layer's gaps back out: what is left
			// is what With makes of the rest (the note, the mode).
			want := tt.from.With(Result{Gaps: tt.add}.Without(LayerMemory)...)
			if got := r.Except(LayerMemory); got.Level != want.Level || got.Reason != want.Reason ||
				len(got.Gaps) != len(want.Gaps) {
				t.Errorf("Except(memory) = %s %q; want %s %q", got.Level, got.Reason, want.Level,
					want.Reason)
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

// TestNotApplied: a run that ended before its policy was applied is told
// apart from one the operating system was asked nothing of by its gap's
// layer, not its reason; both are level none.
func TestNotApplied(t *testing.T) {
	tests := []struct {
		name          string
		r             Result
		wantUnapplied bool
	}{
		{name: "ended before the apply", r: NotApplied(), wantUnapplied: true},
		{name: "--no-confine", r: NotConfined("--no-confine: the operating system was asked for nothing")},
		{name: "the same words, another layer", r: NotConfined(reasonNotApplied)},
		{name: "full", r: ResultOf(true, []string{LayerSeccomp}, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Unapplied(); got != tt.wantUnapplied {
				t.Errorf("Unapplied() = %v, want %v", got, tt.wantUnapplied)
			}
			if tt.r.Level == "" || (tt.name != "full" && tt.r.Level != None) {
				t.Errorf("level %q", tt.r.Level)
			}
		})
	}
}

func TestHoldsAsExpected(t *testing.T) {
	landlock, seccomp := LayerLandlock(7), LayerSeccomp
	full := ResultOf(true, []string{landlock, seccomp}, nil)
	devices := full.With(Gap{Layer: LayerLanguage, Kind: GapUnheld, Text: "device nodes"})
	noLandlock := ResultOf(true, []string{seccomp},
		[]Gap{{Layer: LayerLandlockFamily, Kind: GapUnheld, Text: "the ruleset was refused"}})
	for _, tt := range []struct {
		name   string
		held   Result
		level  Level
		layers []string
		want   bool
	}{
		{name: "full, every layer", held: full, level: Full, layers: []string{landlock, seccomp},
			want: true},
		{name: "a limit the language alone holds, aside", held: devices, level: Full,
			layers: []string{landlock, seccomp}, want: true},
		{name: "a layer missing, at the level expected", held: noLandlock, level: Partial,
			layers: []string{landlock, seccomp}},
		{name: "below the level", held: noLandlock, level: Full, layers: []string{seccomp}},
		{name: "the layers held, none asked", held: noLandlock, level: Partial, want: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.held.HoldsAsExpected(tt.level, tt.layers); got != tt.want {
				t.Errorf("HoldsAsExpected(%s, %v) of %s %v: %v, want %v", tt.level, tt.layers,
					tt.held.Level, tt.held.Layers, got, tt.want)
			}
		})
	}
}

// TestJoinSome: a level's reason names at most four of the guarded
// locations a rule reaches, then how many more, so that a grant of a
// home with a great many of them beneath it says a line, not all of
// them.
func TestJoinSome(t *testing.T) {
	tests := []struct {
		items []string
		want  string
	}{
		{items: []string{"a"}, want: "a"},
		{items: []string{"a", "b", "c", "d"}, want: "a, b, c and d"},
		{items: []string{"a", "b", "c", "d", "e"}, want: "a, b, c, d and 1 more"}, // one past four
		{items: []string{"a", "b", "c", "d", "e", "f"}, want: "a, b, c, d and 2 more"},
	}
	for _, tt := range tests {
		if got := JoinSome(tt.items); got != tt.want {
			t.Errorf("JoinSome(%q) = %q, want %q", tt.items, got, tt.want)
		}
	}
}
