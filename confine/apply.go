package confine

import (
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// ApplyOptions are what Apply needs besides the policy.
type ApplyOptions struct {
	// TempDir is the run's private temporary directory, made by the caller.
	TempDir string
	// MaxMemoryMB is the run's memory limit, 0 for none.
	MaxMemoryMB int
	// CarveOuts are the guarded locations the kernel holds out of every
	// grant above them (guard.Set.CarveOuts).
	CarveOuts []guard.CarveOut
	// Admitted are the granted paths as they resolved when the run, or
	// the pool, was admitted (guard.Resolve): a grant that resolves
	// otherwise when the worker starts is withheld (Moved).
	Admitted map[string]string
}

// Apply holds the calling process, every thread of it, to the policy, and
// reports what the kernel accepted. It is called once, by the worker,
// after the program is compiled and before its first statement. The
// Result is what was applied and held, never what was asked for: when a
// layer cannot be applied, the Result says so, and err says why when the
// failure was not simply the system offering nothing.
//
// A policy that is not Enforced is not applied: the Result is level none.
// On a system this build has no confinement for, Apply returns level none
// and ErrUnsupported.
func Apply(p core.Policy, o ApplyOptions) (core.Result, error) {
	if !p.Enforced {
		return core.OffResult(p), nil
	}
	return apply(p, o)
}
