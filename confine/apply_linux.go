//go:build linux

package confine

import (
	"errors"
	"fmt"
	"github.com/sabline/sabline/confine/core"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"

	"github.com/sabline/sabline/confine/seccomp"
)

// linuxNeeds resolves the policy's named needs to this machine's paths.
func linuxNeeds(p Policy, tempDir string) Needs {
	exe, _ := os.Executable() // "" is skipped like any missing need
	return LinuxNeeds(p, exe, tempDir)
}

// apply holds every thread to p: the memory limit, then nodev on the
// mounts (holdDevices), then Landlock at the kernel's ABI, then the
// capability drop, then the seccomp filter with TSYNC. In a knock-out
// build, LayersOnlyEnv may leave all but one layer out (layersOnly); the
// mounts go with Landlock.
func apply(p Policy, o ApplyOptions) (Result, error) {
	only, err := layersOnly()
	if err != nil {
		// A switch that names no layer applies every layer, and says so
		// among the reason's problems.
		held, applyErr := applySteps(p, o, steps{problem: err.Error()})
		return held, errors.Join(err, applyErr)
	}
	return applySteps(p, o, steps{only: only})
}

// steps says which layers applySteps installs, and which it hands what the
// kernel refuses. A run's apply leaves both empty: every layer, none
// spoiled.
type steps struct {
	// only is the one layer installed ("landlock", "seccomp" or
	// "capabilities", as LayersOnlyEnv names them); "" for every layer.
	only string
	// refuse is the layer ("memory" for the address-space limit) whose
	// install is handed something the kernel refuses, so that its failure
	// takes the path a real one takes. Set only by confine's own tests.
	refuse string
	// problem is a sentence the reason carries whatever the layers did
	// (a LayersOnlyEnv that names no layer).
	problem string
}

// on reports whether the layer named as LayersOnlyEnv names it is installed.
func (s steps) on(layer string) bool { return s.only == "" || s.only == layer }

// applySteps is apply with the layers s says. The reason names each layer
// that failed, with why, and the layers left out; the level is what the
// kernel accepted, and the error is the first failure that was not simply
// the kernel offering no Landlock.
func applySteps(p Policy, o ApplyOptions, s steps) (Result, error) {
	var held linuxHeld
	var firstErr error
	fail := func(err error, layer, problem string) {
		if firstErr == nil {
			firstErr = err
		}
		held.Problems = append(held.Problems, Gap{Layer: layer, Kind: GapUnheld, Text: problem})
	}
	if o.MaxMemoryMB > 0 {
		if err := setAddressSpace(o.MaxMemoryMB, s.refuse == layerMemory); err != nil {
			fail(err, LayerMemory, "the memory limit could not be set: "+err.Error())
		}
	}
	if s.problem != "" {
		held.Problems = append(held.Problems, Gap{Layer: LayerApply, Kind: GapUnheld, Text: s.problem})
	}
	if s.only != "" {
		var out []string
		for _, l := range []string{layerLandlockOnly, layerSeccompOnly, layerCapabilitiesOnly} {
			if !s.on(l) {
				out = append(out, l)
			}
		}
		held.Problems = append(held.Problems, Gap{Layer: LayerApply, Kind: GapUnheld,
			Text: fmt.Sprintf("%s=%s, in a knock-out build: %s left out", LayersOnlyEnv, s.only, core.JoinAnd(out))})
	}
	// Device nodes beneath the grants, which Landlock cannot tell from
	// files: nodev added to the mounts in the worker's own mount
	// namespace, before Landlock, which refuses a landlocked process any
	// change to its mounts.
	told := takeMountNamespace()
	if s.on(layerLandlockOnly) {
		held.DeviceNodes, held.DeviceNodesWhy = holdDevices(p, told)
	}
	// A kernel with no Landlock, or with Landlock off, has nothing to
	// apply, and assessLinux names what is then not held. Any other
	// failure to read the ABI is a problem of its own.
	if s.on(layerLandlockOnly) {
		abi, err := LandlockABI()
		switch {
		case err == nil:
			if err := holdLandlock(p, o, abi, s.refuse == layerLandlockOnly, &held); err != nil {
				fail(err, LayerLandlockFamily, err.Error())
			}
		case !errors.Is(err, syscall.ENOSYS) && !errors.Is(err, syscall.EOPNOTSUPP):
			fail(err, LayerLandlockFamily, "the kernel's Landlock ABI could not be read: "+err.Error())
		}
	}
	// The capability drop hardens the layers around it; where it fails the
	// Result leaves its layer out and the reason says why, but the level
	// stands on the other layers. It comes before the filter, which
	// refuses tkill: libpsx, in a build with cgo, signals each thread with
	// it.
	if s.on(layerCapabilitiesOnly) {
		if err := dropCapabilities(s.refuse == layerCapabilitiesOnly); err != nil {
			held.CapabilitiesFailure = err.Error()
			if firstErr == nil {
				firstErr = err
			}
		} else {
			held.CapabilitiesDropped = true
		}
	}
	if s.on(layerSeccompOnly) {
		install := func() error { return applySeccomp(p) }
		if s.refuse == layerSeccompOnly {
			install = installRefused
		}
		if err := install(); err != nil {
			// Not a problem of its own: assessLinux says it in the sentence
			// that names what the filter's absence leaves unheld.
			held.SeccompFailure = err.Error()
			if firstErr == nil {
				firstErr = err
			}
		} else {
			held.Seccomp = true
		}
	} else {
		held.SeccompFailure = "left out by " + LayersOnlyEnv
	}
	return assessLinux(p, held), firstErr
}

// holdLandlock plans the ruleset for the kernel's ABI and applies it. With
// refuse, the plan gains a rule on a namespace file, which lives on a file
// system the kernel holds no rule on (EBADFD): the ruleset is refused and
// nothing is applied.
func holdLandlock(p Policy, o ApplyOptions, abi int, refuse bool, held *linuxHeld) error {
	plan, err := LandlockPlan(p, linuxNeeds(p, o.TempDir), abi)
	if err != nil {
		return fmt.Errorf("the Landlock ruleset could not be planned: %w", err)
	}
	if refuse {
		plan.Rules = append(plan.Rules, LandlockRule{Path: "/proc/self/ns/net", Access: LandlockFSReadFile, Why: "a rule the kernel refuses"})
	}
	applied, err := ApplyLandlock(plan, o.CarveOuts, o.Admitted)
	if err != nil {
		return fmt.Errorf("apply Landlock: the kernel refused the ruleset: %w", err)
	}
	held.LandlockABI, held.Missing, held.Carving = applied.ABI, applied.Missing, applied.Carving
	return nil
}

// installRefused installs a seccomp program the kernel rejects: it ends
// without returning (EINVAL), so no thread is filtered.
func installRefused() error {
	raw, err := bpf.Assemble([]bpf.Instruction{bpf.LoadAbsolute{Off: 0, Size: 4}})
	if err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	if err := seccomp.Install(raw); err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	return nil
}

// applySeccomp installs p's allow-list filter on every thread. An
// unenforced policy never reaches here: Apply installs nothing for it.
func applySeccomp(p Policy) error {
	arch, ok := seccomp.NativeArch()
	if !ok {
		return fmt.Errorf("confine: no seccomp filter for this architecture")
	}
	ins, err := seccomp.Program(seccompConfig(p, os.Getpid()), arch)
	if err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	raw, err := seccomp.Assemble(ins)
	if err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	if err := seccomp.Install(raw); err != nil {
		return fmt.Errorf("confine: %w", err)
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
// as it is: it matters only to a new program, and none is started. With
// refuse, the effective set keeps CAP_SYS_ADMIN beside a permitted set
// without it, which the kernel refuses (EPERM): no thread changes.
func dropCapabilities(refuse bool) error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for i := range data {
		kept := uint32(keptCapabilities >> (32 * i))
		data[i].Effective &= kept
		data[i].Permitted &= kept
		data[i].Inheritable = 0
	}
	if refuse {
		data[unix.CAP_SYS_ADMIN/32].Effective |= 1 << (unix.CAP_SYS_ADMIN % 32)
	}
	// psx reaches every thread: through syscall.AllThreadsSyscall in a
	// build without cgo, and through libpsx, which also reaches threads
	// the C side made, in one with it.
	_, _, errno := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	if errno != 0 {
		return fmt.Errorf("capset on every thread: %w", errno)
	}
	return nil
}

// addressSpaceSlack is room above twice the limit for the Go runtime's own
// reservations (heap arenas come 64 MB at a time), so that the worker's
// watch of its heap, which ends the run with a clear E308, comes first.
const addressSpaceSlack = 256 << 20

// limitAddressSpace sets RLIMIT_AS to what the process maps now, plus twice
// the limit, plus addressSpaceSlack: a backstop the kernel holds under the worker's own watch of
// its heap, which ends the run at the limit itself.
func limitAddressSpace(mb int) error { return setAddressSpace(mb, false) }

// setAddressSpace is limitAddressSpace; with refuse, the soft limit asked
// for is above the hard one, which the kernel refuses (EINVAL).
func setAddressSpace(mb int, refuse bool) error {
	var size, resident uint64
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return fmt.Errorf("read /proc/self/statm: %w", err)
	}
	if _, err := fmt.Sscan(string(data), &size, &resident); err != nil {
		return fmt.Errorf("parse /proc/self/statm: %w", err)
	}
	limit := size*uint64(os.Getpagesize()) + 2*uint64(mb)<<20 + addressSpaceSlack
	rl := unix.Rlimit{Cur: limit, Max: limit}
	if refuse {
		rl.Cur++
	}
	if err := unix.Setrlimit(unix.RLIMIT_AS, &rl); err != nil {
		return fmt.Errorf("setrlimit(RLIMIT_AS): %w", err)
	}
	return nil
}
