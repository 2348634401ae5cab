//go:build !linux

package confine

import (
	"runtime"

	"github.com/sabline/sabline/confine/core"
)

// KernelRelease is the running kernel's release: not read on this system.
func KernelRelease() string { return "" }

// Probe reads what this machine offers: on this system, nothing this
// build can use.
func Probe() Machine { return Machine{OS: runtime.GOOS} }

// OnThisMachine is the confinement a run under p would get here, where
// every layer this system has is applied: Predict for macOS and Windows
// (the run's own Result says what was held), nothing on a system this
// build cannot confine.
func OnThisMachine(p core.Policy) core.Result {
	if !p.Enforced {
		return core.OffResult(p)
	}
	if sys, ok := ThisSystem(); ok {
		return Predict(p, sys)
	}
	return unsupported()
}

// Expected is what a run under p must be held with where no level was
// asked for: on this system, nothing (the zero Result). Its prediction
// (Predict) is a plan no run here has been checked against, so a level it
// names is not required of a run that did not ask for it; a run's receipt
// says what was held.
func Expected(core.Policy) core.Result { return core.Result{} }
