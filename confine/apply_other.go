//go:build !linux

package confine

// apply fails closed: this build holds nothing on this system, and says so.
func apply(Policy, ApplyOptions) (Result, error) {
	return unsupported(), ErrUnsupported
}

func unsupported() Result {
	return Result{Level: None, Reason: "this build of Sabline has no confinement for this operating system", Layers: []string{}}
}
