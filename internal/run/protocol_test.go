package run

import (
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/core"
)

func TestCheckConfine(t *testing.T) {
	for _, tt := range []struct {
		name     string
		mode     core.Mode
		require  core.Level
		wantCode codes.Code // "" for none
	}{
		{name: "no level asked", mode: core.ModeDefault},
		{name: "full", mode: core.ModeStrict, require: core.Full},
		{name: "none", mode: core.ModeDefault, require: core.None},
		{name: "none beside no confinement", mode: core.ModeOff, require: core.None},
		{name: "partial beside no confinement", mode: core.ModeOff, require: core.Partial,
			wantCode: codes.E301},
		{name: "a level of no name", mode: core.ModeDefault, require: "most", wantCode: codes.E301},
		{name: "a mode of no name", mode: "loose", wantCode: codes.E301},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := codes.CodeOf(CheckConfine(tt.mode, tt.require)); got != tt.wantCode {
				t.Errorf("CheckConfine(%q, %q): %q, want %q", tt.mode, tt.require, got, tt.wantCode)
			}
		})
	}
}

// TestRequired: a level asked for is taken as it is; where none is, the
// level this machine holds the policy at (confine.Expected), except under
// no confinement and for a policy that holds nothing.
func TestRequired(t *testing.T) {
	io := budget.MustParse("/", "io")
	for _, tt := range []struct {
		name         string
		asked        core.Level
		mode         core.Mode
		allow        budget.Budget
		wantLevel    core.Level // "machine" for confine.Expected's
		wantExpected bool
	}{
		{name: "full asked", asked: core.Full, allow: io, wantLevel: core.Full},
		{name: "none asked", asked: core.None, allow: io, wantLevel: core.None},
		{name: "nothing asked", allow: io, wantLevel: "machine", wantExpected: true},
		{name: "nothing asked, no confinement", mode: core.ModeOff, allow: io},
		{name: "nothing asked, a module that widens the policy to nothing",
			allow: budget.MustParse("/", "io,ffi:ctypes")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := core.OSPolicy(tt.allow, core.Options{Mode: tt.mode})
			want := tt.wantLevel
			if want == "machine" {
				if want = confine.Expected(p).Level; want == "" {
					t.Skip("this system requires no level of a run that asks for none")
				}
			}
			level, _, expected := Required(tt.asked, tt.mode, p)
			if level != want || expected != tt.wantExpected {
				t.Errorf("Required: %q, expected %v; want %q, %v", level, expected, want,
					tt.wantExpected)
			}
		})
	}
}
