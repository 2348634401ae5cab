//go:build linux

package confine

import (
	"os"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// KernelRelease is the running kernel's release, as uname -r prints it;
// "" when it cannot be read.
func KernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

// Probe reads what this machine offers.
func Probe() Machine {
	m := Machine{OS: string(Linux), Kernel: KernelRelease()}
	if abi, err := linux.LandlockABI(); err != nil {
		m.LandlockNote = err.Error()
	} else {
		m.LandlockABI, m.LandlockNote = abi, linux.LandlockABILowered()
	}
	// PR_GET_SECCOMP fails with EINVAL on a kernel built without seccomp.
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		m.SeccompNote = "prctl(PR_GET_SECCOMP): " + err.Error()
	} else {
		m.Seccomp = true
	}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		m.SeccompMode, m.NoNewPrivs = procStatus(string(status))
	}
	return m
}

// offered is what the kernel offers of the layers, as Probe reads it:
// the Landlock ABI (0 for none) and whether it has seccomp. Neither
// changes while a process runs, so it is read once: a supervisor asks
// before every run (Expected), and Probe's reading costs some 15 system
// calls.
var offered = sync.OnceValues(func() (abi int, seccomp bool) {
	if a, err := linux.LandlockABI(); err == nil {
		abi = a
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return abi, err == nil
})

// OnThisMachine is the confinement a run under p would get here, from
// what Probe finds, without applying anything; a granted directory the
// supervisor makes before the worker starts (its parent there) counted as
// made. A run's receipt says what was actually held.
func OnThisMachine(p core.Policy) core.Result {
	if !p.Enforced {
		return core.OffResult(p)
	}
	return holdsNow(p, toMake(p, os.Lstat, os.Stat))
}

// holdsNow is the confinement of an enforced policy p here, each granted
// path that is not there held beneath the directory above it, but for
// those in made.
func holdsNow(p core.Policy, made []string) core.Result {
	abi, seccomp := offered()
	held := linux.Held{LandlockABI: min(abi, linux.LandlockMaxABI), Seccomp: seccomp,
		CapabilitiesDropped: true}
	// As a worker's Apply finds them: the device nodes beneath the grants
	// that no nodev mount holds, where no mount namespace can be made.
	held.DeviceNodes, held.DeviceNodesWhy = linux.DeviceNodesHere(p)
	for _, dir := range append(append([]string{}, p.Read.Paths...), p.Write.Paths...) {
		if _, err := os.Stat(dir); err != nil && !slices.Contains(made, dir) &&
			!slices.Contains(held.Missing, dir) {
			held.Missing = append(held.Missing, dir)
		}
	}
	return linux.Assess(p, held)
}

// Expected is what a run under p must be held with where no level was
// asked for: the confinement this machine holds p with, its granted paths
// as they are now (a supervisor asks once it has made those it makes),
// so that a layer the kernel offers and that fails to install in the
// worker (a Landlock ruleset the kernel refuses, a filter that cannot be
// loaded), or a granted path gone before the worker holds it, refuses
// the run rather than let it run held less. The limits the language
// alone holds (core.LayerLanguage: device nodes beneath a grant no nodev
// mount holds, guarded locations beneath a grant too large to carve) are
// left out of it, its level made again without them: no layer's install
// decides them, and another user's files may change them between this
// look and the worker's start. The zero Result for a policy that holds
// nothing, which no run of it could fall below.
func Expected(p core.Policy) core.Result {
	if !p.Enforced {
		return core.Result{}
	}
	return holdsNow(p, nil).Except(core.LayerLanguage)
}
