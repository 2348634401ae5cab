package linux

import (
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
)

// policyOf derives the policy of the budget allow, in the strict mode or
// the default one.
func policyOf(allow string, strict bool) core.Policy {
	return core.OSPolicy(budget.MustParse("/", allow), core.Options{Mode: modeOf(strict)})
}

func modeOf(strict bool) core.Mode {
	if strict {
		return core.ModeStrict
	}
	return core.ModeDefault
}
