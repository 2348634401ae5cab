//go:build !linux

package confine

import "github.com/sabline/sabline/confine/core"

// learnWorkerHolds has nothing to learn here: the supervisor's side of
// confinement reads nothing of this process before a worker starts.
func learnWorkerHolds(core.Policy, int) {}
