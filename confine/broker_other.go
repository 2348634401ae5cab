//go:build !linux

package confine

import "github.com/sabline/sabline/confine/core"

// Brokered: this build has no connection broker on this system; a
// worker dials itself, and its net grants are held as the system's
// confinement holds them.
func Brokered(core.Policy) bool { return false }
