package confine

import (
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/darwin"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/confine/windows"
)

// Predict returns the level a run of p gets on sys (one of Systems) where
// every layer that system has is present: Landlock at LandlockMaxABI and
// seccomp; the sandbox profile; the job object, the token, and the
// integrity level and AppContainer of WindowsPlanFor on a system whose
// container resolves paths as its parent does, for grants whose size is
// not known. It reads nothing of the machine, as an audit
// made anywhere must read the same.
func Predict(p core.Policy, sys System) core.Result {
	switch sys {
	case Linux:
		return linux.Predict(p)
	case Darwin:
		return darwin.Predict(p)
	case Windows:
		return windows.Predict(p)
	}
	return core.NotConfined("Sabline has no confinement for " + string(sys))
}
