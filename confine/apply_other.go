//go:build !linux && !darwin && !windows

package confine

// apply fails closed: this build holds nothing on this system, and says so.
func apply(Policy, ApplyOptions) (Result, error) {
	return unsupported(), ErrUnsupported
}
