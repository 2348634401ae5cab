package linux

import (
	"fmt"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/seccomp"
	"github.com/sabline/sabline/guard"
)

// refusedBy returns in with the install of layer ("landlock", "seccomp",
// "capabilities", or "memory" for the address-space limit) handed
// something the kernel refuses, so that its failure takes the path a real
// one takes; in itself for "". Only tests make such an installer: a run's
// is buildInstaller's.
func refusedBy(in installer, layer string) installer {
	switch layer {
	case layerMemory:
		in.addressSpace = refusedAddressSpace
	case layerLandlockOnly:
		in.landlock = refusedLandlock
	case layerCapabilitiesOnly:
		in.capabilities = refusedCapabilities
	case layerSeccompOnly:
		in.seccomp = refusedSeccomp
	}
	return in
}

// refusedAddressSpace asks for a soft limit above the hard one, which the
// kernel refuses (EINVAL).
func refusedAddressSpace(mb int) error {
	limit, err := addressSpaceLimit(mb)
	if err != nil {
		return err
	}
	return setAddressSpace(unix.Rlimit{Cur: limit + 1, Max: limit})
}

// refusedLandlock adds to the plan a rule on a namespace file, which lives
// on a file system the kernel holds no rule on (EBADFD): the ruleset is
// refused and nothing is applied.
func refusedLandlock(plan LandlockRuleset, carveOuts []guard.CarveOut,
	admitted map[string]string) (LandlockApplied, error) {
	plan.Rules = append(plan.Rules, LandlockRule{Path: "/proc/self/ns/net", Access: LandlockFSReadFile,
		Why: "a rule the kernel refuses"})
	return ApplyLandlock(plan, carveOuts, admitted)
}

// refusedCapabilities keeps CAP_SYS_ADMIN in the effective set beside a
// permitted set without it, which the kernel refuses (EPERM): no thread
// changes.
func refusedCapabilities() error {
	hdr, data, err := keptCapabilitySets()
	if err != nil {
		return err
	}
	data[unix.CAP_SYS_ADMIN/32].Effective |= 1 << (unix.CAP_SYS_ADMIN % 32)
	return capsetEveryThread(&hdr, &data)
}

// refusedSeccomp installs a seccomp program the kernel rejects: it ends
// without returning (EINVAL), so no thread is filtered.
func refusedSeccomp(core.Policy, int) error {
	raw, err := bpf.Assemble([]bpf.Instruction{bpf.LoadAbsolute{Off: 0, Size: 4}})
	if err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	if err := seccomp.Install(raw); err != nil {
		return fmt.Errorf("confine: %w", err)
	}
	return nil
}
