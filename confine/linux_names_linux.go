//go:build linux

package confine

import (
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
)

// LandlockApplied is linux.LandlockApplied: what ApplyLandlock got
// from the kernel.
type LandlockApplied = linux.LandlockApplied

// LandlockABI returns the kernel's Landlock ABI (linux.LandlockABI).
func LandlockABI() (int, error) { return linux.LandlockABI() }

// ApplyLandlock restricts every thread to plan, carved around carveOuts
// (linux.ApplyLandlock).
func ApplyLandlock(plan LandlockRuleset, carveOuts []guard.CarveOut,
	admitted map[string]string) (LandlockApplied, error) {
	return linux.ApplyLandlock(plan, carveOuts, admitted)
}

// WorkerCgroups is the directory this process makes its workers' memory
// cgroups in, "" when it makes none (linux.WorkerCgroups).
func WorkerCgroups() string { return linux.WorkerCgroups() }

// EnterNodevNamespace re-executes this process in a mount namespace of its
// own with nodev on the mounts beneath the grants (linux.EnterNodevNamespace).
func EnterNodevNamespace() error { return linux.EnterNodevNamespace() }

// LimitMemory holds this process's address space to the run's memory
// limit of mb megabytes (linux.LimitMemory).
func LimitMemory(mb int) error { return linux.LimitMemory(mb) }
