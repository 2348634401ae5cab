//go:build darwin

package confine

import (
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/darwin"
)

// apply holds the process to p with the sandbox profile (darwin.Apply),
// naming the guarded locations its grants' allowances reach.
func apply(p core.Policy, o ApplyOptions) (core.Result, error) {
	return darwin.Apply(p, o.TempDir, o.MaxMemoryMB, o.CarveOuts)
}
