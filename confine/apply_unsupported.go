//go:build !linux

package confine

import "github.com/sabline/sabline/confine/core"

// unsupported is the Result of a run on a system this build holds
// nothing on.
func unsupported() core.Result {
	return core.NotConfined("this build of Sabline has no confinement for this operating system")
}
