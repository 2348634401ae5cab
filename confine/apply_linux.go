//go:build linux

package confine

// apply is not wired to the kernel yet: it fails closed like apply_other.go.
func apply(Policy, ApplyOptions) (Result, error) {
	return Result{Level: None, Reason: "not confined yet: Linux confinement is not wired in this build", Layers: []string{}}, ErrUnsupported
}
