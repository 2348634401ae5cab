//go:build !linux && !darwin && !windows

package confine

import "github.com/sabline/sabline/confine/core"

// apply fails closed: this build holds nothing on this system, and says so.
func apply(core.Policy, ApplyOptions) (core.Result, error) {
	return unsupported(), core.ErrUnsupported
}
