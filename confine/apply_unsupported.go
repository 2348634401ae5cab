//go:build !linux

package confine

// unsupported is the Result of a run on a system this build holds
// nothing on.
func unsupported() Result {
	return NotConfined("this build of Sabline has no confinement for this operating system")
}
