//go:build !linux

package confine

import "github.com/sabline/sabline/confine/core"

// LimitMemory: this build sets no address-space limit on this system; the
// worker's watch of its heap is the memory limit.
func LimitMemory(int) error { return core.ErrUnsupported }
