package cli

import (
	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
)

// registered refuses a budget given by --allow that grants a host
// module this binary does not have (sabline.CheckModules).
func registered(b budget.Budget) error { return sabline.CheckModules("--allow", b) }

// requireHeld refuses, before a worker starts, a run that asks for a
// confinement level its budget cannot have anywhere: a granted module that
// widens the policy to nothing enforced makes every run of the budget level
// none (confine.Apply applies nothing and says why), which no
// --require-confinement accepts. The worker would refuse it too, after
// saying that the layer is off; refused here, the reason is said once. It
// returns what the run would have been held at, for the receipt.
func requireHeld(b budget.Budget, mode confine.Mode,
	require confine.Level) (confine.Result, error) {
	if require == "" || mode == confine.ModeOff {
		return confine.Result{}, nil
	}
	p := confine.OSPolicy(b, confine.Options{Mode: mode})
	if p.Enforced {
		return confine.Result{}, nil
	}
	held := confine.NotConfined(p.OffReason())
	return held, codes.Errorf(codes.E326,
		"--require-confinement %s: this run's confinement is %s (%s); it was refused before its first "+
			"statement",
		require, held.Level, held.Reason)
}
