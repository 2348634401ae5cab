//go:build !linux

package confine

import "github.com/sabline/sabline/confine/core"

// LimitMemory: this build sets no address-space limit on this system; the
// worker's watch of its heap is the memory limit.
func LimitMemory(int) error { return core.ErrUnsupported }

// AdoptOrphans: no process adopts its descendants' orphans on this system;
// the worker's process group (Unix) or job (Windows) holds what it starts.
func AdoptOrphans() error { return core.ErrUnsupported }

// KillDescendants: the supervisor's kill of the worker's process group or
// job ends what it started.
func KillDescendants() {}
