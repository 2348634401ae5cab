package run

import (
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/program"
)

// CheckConfine refuses (E301) a confinement mode that is not one of the
// three, a required level that is not full, partial or none, and full or
// partial beside core.ModeOff, which asks for no confinement.
func CheckConfine(mode core.Mode, require core.Level) error {
	switch mode {
	case core.ModeDefault, core.ModeStrict, core.ModeOff:
	default:
		return codes.Errorf(codes.E301, "confine %q: want %s, %s or %s", mode, core.ModeDefault,
			core.ModeStrict, core.ModeOff)
	}
	if require == "" {
		return nil
	}
	l, err := core.ParseLevel(string(require))
	if err != nil {
		return codes.Errorf(codes.E301, "required level %q: want full, partial or none", require)
	}
	if mode == core.ModeOff && l != core.None {
		return codes.Errorf(codes.E301,
			"confine %s asks for no confinement, and the required level %s for some: give one or the other",
			core.ModeOff, require)
	}
	return nil
}

// Required is the least level a run's worker must be held at under p in
// mode, asked before the run starts, the layers that must hold it, and
// whether it is the level this machine holds p at rather than one asked
// for. A level asked for is taken as it is (none: no least level), and so
// is core.ModeOff's none, with no layers. Where none was asked, it is
// confine.Expected's, with each of its layers that holds a limit (a
// worker's confinement is judged by core.Result.HoldsAsExpected): a layer
// the kernel offers that fails to install refuses the run, where it would
// otherwise run held less than this machine holds such a run; in a
// knock-out build, whose runs are held less on purpose, there is none. A
// granted directory the run's supervisor makes (its parent there) is
// counted made, as the supervisor counts it once it has made it
// (confine.OnThisMachine): one removed since an earlier run made it
// lowers the level no further.
func Required(asked core.Level, mode core.Mode, p core.Policy) (level core.Level, layers []string,
	expected bool) {
	r, expected := required(asked, mode, p)
	if expected {
		r = confine.OnThisMachine(p).Except(core.LayerLanguage)
		layers = holding(r)
	}
	return r.Level, layers, expected
}

// required is Required with, where the level is the one this machine
// holds p at, what holds it there (confine.Expected): each of its layers
// that holds a limit (holding) must hold the worker too, whatever its
// level, since a level another gap lowered already (a granted path gone)
// would otherwise let a layer that failed to install go unrefused.
func required(asked core.Level, mode core.Mode, p core.Policy) (core.Result, bool) {
	if asked != "" || mode == core.ModeOff || program.Knockout {
		return core.Result{Level: asked}, false
	}
	r := confine.Expected(p)
	return r, r.Level != ""
}

// holding are r's layers that hold a limit of a budget: every one but the
// capability drop, which hardens the others and on which no limit rests.
func holding(r core.Result) []string {
	var out []string
	for _, l := range r.Layers {
		if l != core.LayerCapabilities {
			out = append(out, l)
		}
	}
	return out
}

// knockoutTestimony is the testimony of a run in a knock-out build.
const knockoutTestimony = "a knock-out build holds the program to no grant: it could make " +
	"raw system calls and write the report itself"

// Testimony says why what a run under b reports once its program has
// started (its outcome and effects, as its worker sends them) is
// testimony: the program ran code no budget check holds (any ffi grant, as
// widens says; any code at all in a knock-out build), which could have
// written that report itself. "" when it could not.
func Testimony(b budget.Budget) string {
	if program.Knockout {
		return knockoutTestimony
	}
	if !widens(b) {
		return ""
	}
	return b.Of(budget.FFI)[0].String() + " is granted: host code no budget check holds ran " +
		"beside the program, and could have written the report itself"
}
