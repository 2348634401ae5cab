package darwin

import "github.com/sabline/sabline/confine/core"

// Held is what Apply got from macOS.
type Held struct {
	Profile  bool       // the sandbox profile was applied
	Problems []core.Gap // what the apply could not do, each a limit not held
	// Guarded names the guarded locations a grant's allowance reaches
	// (guardedBeneath): held by the language alone.
	Guarded []string
}

// Assess returns the level of a run held by the sandbox profile as h
// says. It is partial at best: Apple has deprecated sandbox profiles, and
// the profile refuses reads only under the home directory and /Volumes;
// it names the guarded locations a grant reaches (h.Guarded).
func Assess(p core.Policy, h Held) core.Result {
	if !p.Enforced {
		return core.OffResult(p)
	}
	profile := func(text string) core.Gap {
		return core.Gap{Layer: core.LayerSandboxProfile, Kind: core.GapUnheld, Text: text}
	}
	if !h.Profile {
		gaps := append([]core.Gap{profile("the sandbox profile was not applied: nothing is held")},
			h.Problems...)
		return core.ResultOf(false, nil, append(gaps, core.ModeGaps(p)...))
	}
	gaps := []core.Gap{profile("Apple has deprecated sandbox profiles")}
	if !p.Read.Unrestricted {
		gaps = append(gaps, profile("reads are held only under the home directory and /Volumes"))
	}
	gaps = append(gaps, core.GuardedGaps(p, "the profile does not refuse them")...)
	gaps = append(gaps, core.ReachedGaps(h.Guarded,
		"the profile's allowance of a directory above them reaches them")...)
	gaps = append(gaps, core.HostGaps(p)...)
	if p.Network.Mode != core.NetClosed {
		gaps = append(gaps, profile("the profile leaves the network open: Unix sockets are not held"))
	}
	gaps = append(gaps, h.Problems...)
	gaps = append(gaps, core.ModeGaps(p)...)
	gaps = append(gaps, core.WidenedGaps(p, false)...)
	return core.ResultOf(true, []string{core.LayerSandboxProfile}, gaps)
}

// Predict returns the level a run of p gets where the sandbox profile is
// applied. It reads nothing of the machine.
func Predict(p core.Policy) core.Result { return Assess(p, Held{Profile: true}) }
