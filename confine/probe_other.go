//go:build !linux

package confine

// OnThisMachine is the confinement a run under p would get here: on a
// system this build cannot confine, nothing.
func OnThisMachine(p Policy) Result {
	if !p.Enforced {
		return offResult(p)
	}
	return unsupported()
}
