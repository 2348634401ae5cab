package run

import (
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/program"
)

// CheckConfine refuses (E301) a confinement mode that is not one of the
// three, a required level that is not full or partial, and a required
// level beside core.ModeOff, which asks for none.
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
	if l, err := core.ParseLevel(string(require)); err != nil || l == core.None {
		return codes.Errorf(codes.E301, "required level %q: want full or partial", require)
	}
	if mode == core.ModeOff {
		return codes.Errorf(codes.E301,
			"confine %s asks for no confinement, and the required level %s for some: give one or the other",
			core.ModeOff, require)
	}
	return nil
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
