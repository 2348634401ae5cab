//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/seccomp"
	"github.com/sabline/sabline/guard"
)

// linuxNeeds resolves the policy's named needs to this machine's paths.
func linuxNeeds(p core.Policy, tempDir string) core.Needs {
	exe, _ := os.Executable() // "" is skipped like any missing need
	return LinuxNeeds(p, exe, tempDir)
}

// Apply holds every thread to p: the memory limit, then nodev on the
// mounts (holdDevices), then Landlock at the kernel's ABI, then the
// capability drop, then the seccomp filter with TSYNC, each by the
// installer this build was made with (buildInstaller).
func Apply(p core.Policy, o ApplyOptions) (core.Result, error) {
	in := buildInstaller()
	held, err := applyWith(p, o, in)
	return held, errors.Join(in.err, err)
}

// installer makes the system calls that install each Linux layer, one
// function a layer; a nil function is a layer left out. A run's apply
// uses the one its build chose (buildInstaller): every layer, or, in a
// knock-out build, the one LayersOnlyEnv names. This package's tests make ones
// whose install the kernel refuses, in a test file.
type installer struct {
	// landlockABI reads the kernel's Landlock ABI (LandlockABI), which
	// the ruleset is planned for. This package's tests read a lower one,
	// in a test file, to hold a worker as a kernel of that ABI would:
	// a ruleset that handles only an ABI's rights is what a kernel of
	// that ABI enforces.
	landlockABI func() (int, error)
	// addressSpace sets the address-space limit of mb megabytes.
	addressSpace func(mb int) error
	// landlock restricts every thread to the plan (ApplyLandlock); the
	// mounts' nodev goes with it.
	landlock func(plan LandlockRuleset, carveOuts []guard.CarveOut,
		admitted map[string]string) (LandlockApplied, error)
	// capabilities drops every capability but keptCapabilities.
	capabilities func() error
	// seccomp installs the policy's allow-list filter on every thread.
	seccomp func(p core.Policy, landlockABI int) error
	// only is the one layer installed, as LayersOnlyEnv names it; "" for
	// every layer.
	only string
	// abiAtMost is the Landlock ABI LandlockABIEnv names; 0 for the
	// kernel's own.
	abiAtMost int
	// err says why a knock-out switch named no layer, or no ABI; its
	// words are a problem of the Result, and every layer is installed,
	// Landlock at the kernel's ABI.
	err error
}

// everyLayer is the installer of a run: every layer, none left out.
func everyLayer() installer {
	return installer{landlockABI: LandlockABI, addressSpace: limitAddressSpace,
		landlock: ApplyLandlock, capabilities: dropCapabilities, seccomp: applySeccomp}
}

// buildInstaller is the installer of this build: every layer, or in a
// knock-out build (knockoutSwitches) the one LayersOnlyEnv names alone,
// and Landlock at the ABI LandlockABIEnv names at most.
// A switch that names no layer installs every layer, one that names no
// ABI leaves the kernel's, and each says so.
func buildInstaller() installer { return installerFor(knockoutSwitches()) }

// installerFor is the installer the knock-out switches' values ask for
// (parseLayersOnly, parseLandlockABI): every layer, Landlock at the
// kernel's ABI, for "", "".
func installerFor(layers, abiAtMost string) installer {
	in := everyLayer()
	only, err := parseLayersOnly(layers)
	if err != nil {
		in.err = err
	} else {
		in = in.onlyLayer(only)
	}
	abi, err := parseLandlockABI(abiAtMost)
	if err != nil {
		in.err = errors.Join(in.err, err)
	}
	return in.atMostABI(abi)
}

// atMostABI returns in with the kernel's Landlock ABI read as abi where
// the kernel's is higher; in itself for 0.
func (in installer) atMostABI(abi int) installer {
	if abi == 0 {
		return in
	}
	read := in.landlockABI
	in.landlockABI = func() (int, error) {
		kernel, err := read()
		return min(kernel, abi), err
	}
	in.abiAtMost = abi
	return in
}

// onlyLayer returns in with every layer LayersOnlyEnv names but layer
// left out ("landlock", "seccomp" or "capabilities"); in itself for "".
func (in installer) onlyLayer(layer string) installer {
	if layer == "" {
		return in
	}
	in.only = layer
	if layer != layerLandlockOnly {
		in.landlock = nil
	}
	if layer != layerSeccompOnly {
		in.seccomp = nil
	}
	if layer != layerCapabilitiesOnly {
		in.capabilities = nil
	}
	return in
}

// applyWith is apply with the layers of in. The reason names each layer
// that failed, with why, and the layers left out; the level is what the
// kernel accepted, and the error is the first failure that was not simply
// the kernel offering no Landlock.
func applyWith(p core.Policy, o ApplyOptions, in installer) (core.Result, error) {
	var held Held
	var firstErr error
	fail := func(err error, layer, problem string) {
		if firstErr == nil {
			firstErr = err
		}
		held.Problems = append(held.Problems, core.Gap{Layer: layer, Kind: core.GapUnheld, Text: problem})
	}
	if o.MaxMemoryMB > 0 {
		// A caller's lower limit is kept, and holds (limitAddressSpace).
		err := in.addressSpace(o.MaxMemoryMB)
		if err != nil && !errors.Is(err, core.ErrCallerMemoryLimit) {
			fail(err, core.LayerMemory, "the memory limit could not be set: "+err.Error())
		}
	}
	if in.err != nil {
		held.Problems = append(held.Problems,
			core.Gap{Layer: core.LayerApply, Kind: core.GapUnheld, Text: in.err.Error()})
	}
	if in.only != "" {
		var out []string
		for _, l := range []struct {
			name string
			on   bool
		}{{layerLandlockOnly, in.landlock != nil}, {layerSeccompOnly, in.seccomp != nil},
			{layerCapabilitiesOnly, in.capabilities != nil}} {
			if !l.on {
				out = append(out, l.name)
			}
		}
		held.Problems = append(held.Problems, core.Gap{Layer: core.LayerApply, Kind: core.GapUnheld,
			Text: fmt.Sprintf("%s=%s, in a knock-out build: %s left out",
				LayersOnlyEnv, in.only, core.JoinAnd(out))})
	}
	if in.abiAtMost != 0 && in.landlock != nil {
		held.Problems = append(held.Problems, core.Gap{Layer: core.LayerLandlockFamily,
			Kind: core.GapNote, Text: fmt.Sprintf("%s=%d, in a knock-out build: Landlock "+
				"planned at ABI %d at most, as a kernel of that ABI holds it",
				LandlockABIEnv, in.abiAtMost, in.abiAtMost)})
	}
	// Device nodes beneath the grants, which Landlock cannot tell from
	// files: nodev added to the mounts in the worker's own mount
	// namespace, before Landlock, which refuses a landlocked process any
	// change to its mounts.
	told := takeMountNamespace()
	if in.landlock != nil {
		held.DeviceNodes, held.DeviceNodesWhy = holdDevices(p, told)
	}
	// A kernel with no Landlock, or with Landlock off, has nothing to
	// apply, and Assess names what is then not held. Any other
	// failure to read the ABI is a problem of its own.
	if in.landlock != nil {
		abi, err := in.landlockABI()
		switch {
		case err == nil:
			if err := holdLandlock(p, o, abi, in.landlock, &held); err != nil {
				fail(err, core.LayerLandlockFamily, err.Error())
			}
		case !errors.Is(err, syscall.ENOSYS) && !errors.Is(err, syscall.EOPNOTSUPP):
			fail(err, core.LayerLandlockFamily, "the kernel's Landlock ABI could not be read: "+err.Error())
		}
	}
	// The capability drop hardens the layers around it; where it fails the
	// Result leaves its layer out and the reason says why, but the level
	// stands on the other layers. It comes before the filter, which
	// refuses tkill: libpsx, in a build with cgo, signals each thread with
	// it.
	if in.capabilities != nil {
		if err := in.capabilities(); err != nil {
			held.CapabilitiesFailure = err.Error()
			if firstErr == nil {
				firstErr = err
			}
		} else {
			held.CapabilitiesDropped = true
		}
	}
	if in.seccomp != nil {
		if err := in.seccomp(p, held.LandlockABI); err != nil {
			// Not a problem of its own: Assess says it in the sentence
			// that names what the filter's absence leaves unheld.
			held.SeccompFailure = err.Error()
			if firstErr == nil {
				firstErr = err
			}
		} else {
			held.Seccomp, held.SeccompTruncate = true, truncateRefused(held.LandlockABI)
		}
	} else {
		held.SeccompFailure = "left out by " + LayersOnlyEnv
	}
	return Assess(p, held), firstErr
}

// holdLandlock plans the ruleset for the kernel's ABI and has install
// (the installer's landlock) apply it.
func holdLandlock(p core.Policy, o ApplyOptions, abi int, install func(LandlockRuleset,
	[]guard.CarveOut,
	map[string]string) (LandlockApplied, error), held *Held) error {
	plan, err := LandlockPlan(p, linuxNeeds(p, o.TempDir), abi)
	if err != nil {
		return fmt.Errorf("the Landlock ruleset could not be planned: %w", err)
	}
	applied, err := install(plan, o.CarveOuts, o.Admitted)
	if err != nil {
		return fmt.Errorf("apply Landlock: the kernel refused the ruleset: %w", err)
	}
	held.LandlockABI, held.Missing, held.Carving = applied.ABI, applied.Missing, applied.Carving
	return nil
}

// applySeccomp builds p's allow-list filter for this process and this
// machine's architecture, beside a Landlock ruleset of ABI abi (0: none)
// (seccompFilter), then installs it on every thread. An unenforced policy
// never reaches here: Apply installs nothing for it.
func applySeccomp(p core.Policy, abi int) error {
	a, ok := nativeArch()
	if !ok {
		return fmt.Errorf("confine: no seccomp filter for this architecture")
	}
	raw, err := seccompFilter(p, os.Getpid(), abi, a)
	if err != nil {
		return err
	}
	if err := limitDescriptors(); err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	if err := seccomp.Install(raw); err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	return nil
}

// limitDescriptors lowers RLIMIT_NOFILE, soft and hard, to MaxDescriptors,
// or leaves each as it is where it is lower.
func limitDescriptors() error {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return fmt.Errorf("getrlimit(RLIMIT_NOFILE): %w", err)
	}
	rl.Cur, rl.Max = min(rl.Cur, MaxDescriptors), min(rl.Max, MaxDescriptors)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_NOFILE): %w", err)
	}
	return nil
}

// keptCapabilities are the capabilities a worker keeps: the two that let
// root read and write files as before, so that the file effects its
// budget grants work, and are refused, as they were. Every other one
// (changing identity, administering the system, the network or the
// kernel, signalling any process, locking memory) is given up.
const keptCapabilities = 1<<unix.CAP_DAC_OVERRIDE | 1<<unix.CAP_DAC_READ_SEARCH

// dropCapabilities reduces the effective and permitted sets of every
// thread to keptCapabilities, of what it holds now, and empties the
// inheritable set (and with it the ambient one). The bounding set is left
// as it is: it matters only to a new program, and none is started.
func dropCapabilities() error {
	hdr, data, err := keptCapabilitySets()
	if err != nil {
		return err
	}
	return capsetEveryThread(&hdr, &data)
}

// keptCapabilitySets returns the thread's capability sets with every
// capability but keptCapabilities taken out of the effective and
// permitted sets, and the inheritable set empty.
func keptCapabilitySets() (unix.CapUserHeader, [2]unix.CapUserData, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return hdr, data, fmt.Errorf("capget: %w", err)
	}
	for i := range data {
		kept := uint32(keptCapabilities >> (32 * i))
		data[i].Effective &= kept
		data[i].Permitted &= kept
		data[i].Inheritable = 0
	}
	return hdr, data, nil
}

// capsetEveryThread sets the capability sets of every thread to data.
// psx reaches every thread: through syscall.AllThreadsSyscall in a build
// without cgo, and through libpsx, which also reaches threads the C side
// made, in one with it.
func capsetEveryThread(hdr *unix.CapUserHeader, data *[2]unix.CapUserData) error {
	_, _, errno := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(hdr)),
		uintptr(unsafe.Pointer(&data[0])), 0)
	if errno != 0 {
		return fmt.Errorf("capset on every thread: %w", errno)
	}
	return nil
}

// addressSpaceSlack is room above twice the limit for the Go runtime's own
// reservations (heap arenas come 64 MB at a time), so that the worker's
// watch of its memory, which ends the run with a clear E308, comes first.
const addressSpaceSlack = 256 << 20

// limitAddressSpace sets RLIMIT_AS to what the process maps now, plus
// twice the limit, plus addressSpaceSlack: a backstop the kernel holds
// under the worker's own watch of its memory, which ends the run at the
// limit itself. It lowers the soft and hard limits the caller set, as
// limitDescriptors does, and never raises them: one already lower is
// kept, and the error then wraps core.ErrCallerMemoryLimit, the limit
// held all the same.
func limitAddressSpace(mb int) error {
	limit, err := addressSpaceLimit(mb)
	if err != nil {
		return err
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &rl); err != nil {
		return fmt.Errorf("getrlimit(RLIMIT_AS): %w", err)
	}
	rl.Cur, rl.Max = min(rl.Cur, limit), min(rl.Max, limit)
	if err := setAddressSpace(rl); err != nil {
		return err
	}
	if rl.Cur < limit {
		return fmt.Errorf("%w: %d MB (ulimit -v), below the %d MB this memory limit sets",
			core.ErrCallerMemoryLimit, rl.Cur>>20, limit>>20)
	}
	return nil
}

// addressSpaceLimit is the RLIMIT_AS limitAddressSpace sets for mb
// megabytes.
func addressSpaceLimit(mb int) (uint64, error) {
	var size, resident uint64
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, fmt.Errorf("read /proc/self/statm: %w", err)
	}
	if _, err := fmt.Sscan(string(data), &size, &resident); err != nil {
		return 0, fmt.Errorf("parse /proc/self/statm: %w", err)
	}
	return size*uint64(os.Getpagesize()) + 2*uint64(mb)<<20 + addressSpaceSlack, nil
}

// setAddressSpace sets RLIMIT_AS to rl.
func setAddressSpace(rl unix.Rlimit) error {
	if err := unix.Setrlimit(unix.RLIMIT_AS, &rl); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_AS): %w", err)
	}
	return nil
}
