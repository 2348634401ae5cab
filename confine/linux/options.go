package linux

import "github.com/sabline/sabline/guard"

// ApplyOptions are what Apply needs besides the policy; confine's
// ApplyOptions, field for field.
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
