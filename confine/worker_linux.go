package confine

import (
	"os"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// The worker's own steps that are not confinement, each with its
// fallback in a file of the systems that have none.

// WorkerCgroups is the directory this process makes its workers' memory
// cgroups in, "" when it makes none.
func WorkerCgroups() string { return linux.WorkerCgroups() }

// EnterNodevNamespace re-executes this process in a mount namespace of its
// own with nodev on the mounts beneath the grants.
func EnterNodevNamespace() error { return linux.EnterNodevNamespace() }

// LimitMemory holds this process's address space to the run's memory
// limit of mb megabytes.
func LimitMemory(mb int) error { return linux.LimitMemory(mb) }

// AdoptOrphans makes this process its descendants' subreaper, so that
// what a run starts stays among them however it detaches itself (a double
// fork, setsid) until KillDescendants ends it.
func AdoptOrphans() error { return linux.AdoptOrphans() }

// KillDescendants kills every process this one started, and theirs.
func KillDescendants() { linux.KillDescendants(os.Getpid()) }

// Brokered reports whether a worker held to p has its connections made
// by its supervisor (internal/broker): on Linux, under any network of a
// policy that enforces something (linux.Brokered).
func Brokered(p core.Policy) bool { return linux.Brokered(p) }
