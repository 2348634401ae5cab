package windows

import (
	"slices"

	"github.com/sabline/sabline/confine/core"
)

// Held is what the supervisor and the worker got from Windows.
type Held struct {
	Job          bool // the job object holds the worker
	Token        bool // every privilege but SeChangeNotifyPrivilege was removed
	LowIntegrity bool // the worker runs at low integrity
	AppContainer bool // the worker runs inside the run's AppContainer
	// ContainerOffReason says why the container was left off, as
	// PlanFor or the supervisor said it; "" when it is on.
	ContainerOffReason string
	// Guarded are the guarded locations the container's ACEs reach, in
	// words (guardedBeneath): only the language holds them.
	Guarded []string
	// Problems are what the worker found not held as planned, each a
	// limit not held.
	Problems []core.Gap
}

// Assess returns the level of a run held by the job object, the
// token, the integrity level and the AppContainer as h says. Reads and
// the closed network are held only by the container; writes by the
// container, or by the low integrity level when nothing is granted to
// write, but to what is labelled low. A guarded location an ACE reaches
// (h.Guarded) is held by the language alone, and the level is partial;
// so is a read back beneath a write grant no read grant holds, since the
// container's ACE for a write grant carries read, and, with the container
// off, the guarded locations in a direction the budget leaves open.
func Assess(p core.Policy, h Held) core.Result {
	if !p.Enforced {
		return core.OffResult(p)
	}
	var layers []string
	var gaps []core.Gap
	for _, l := range []struct {
		on   bool
		name string
	}{
		{h.Job, core.LayerJobObject},
		{h.Token, core.LayerTokenPrivs},
		{h.LowIntegrity, core.LayerLowIntegrity},
		{h.AppContainer, core.LayerAppContainer},
	} {
		if l.on {
			layers = append(layers, l.name)
		}
	}
	if !h.AppContainer {
		var lost []string
		if !p.Read.Unrestricted {
			lost = append(lost, "reads")
		}
		switch {
		case p.Write.Unrestricted:
		case !h.LowIntegrity:
			lost = append(lost, "writes")
		default: // a low token writes to what is labelled low
			lost = append(lost, `writes to what is labelled low integrity (AppData\LocalLow is)`)
		}
		if p.Network.Mode == core.NetClosed {
			lost = append(lost, "network connections")
		}
		why := "the AppContainer was not applied"
		if h.ContainerOffReason != "" {
			why = "the AppContainer was left off (" + h.ContainerOffReason + ")"
		}
		if len(lost) > 0 {
			gaps = append(gaps, core.Gap{Layer: core.LayerAppContainer, Kind: core.GapUnheld,
				Text: why + ": " + core.JoinAnd(lost) + " are not held"})
		}
		gaps = append(gaps, core.GuardedGaps(p, "the AppContainer is off")...)
	}
	if w := readBackWrites(p); h.AppContainer && len(w) > 0 {
		grants := "the write grant " + w[0]
		if len(w) > 1 {
			grants = "the write grants " + core.JoinSome(w)
		}
		gaps = append(gaps, core.Gap{Layer: core.LayerLanguage, Kind: core.GapUnheld,
			Text: "reads beneath " + grants + " are held by the language alone: the container's " +
				"ACE for a write grant carries read"})
	}
	gaps = append(gaps, core.ReachedGaps(h.Guarded,
		"the container's ACE on a directory above them reaches them")...)
	// The container has internetClient under any net grant: it admits
	// every host, and nothing on Windows holds a port.
	gaps = append(gaps, core.HostGaps(p)...)
	if !h.Job {
		gaps = append(gaps, core.Gap{Layer: core.LayerJobObject, Kind: core.GapUnheld,
			Text: "the job object was not applied: starting a process is not held"})
	}
	if !h.Token {
		gaps = append(gaps, core.Gap{Layer: core.LayerTokenPrivs, Kind: core.GapUnheld,
			Text: "the token's privileges were not removed"})
	}
	gaps = append(gaps, h.Problems...)
	gaps = append(gaps, core.ModeGaps(p)...)
	if len(layers) > 0 {
		gaps = append(gaps, core.WidenedGaps(p, false)...)
	}
	return core.ResultOf(len(layers) > 0, layers, gaps)
}

// Predict returns the level a run of p gets where the job object, the
// token and, as PlanFor decides for grants whose size is not known, the
// integrity level and the AppContainer are applied, on a system whose
// container resolves paths as its parent does. It reads nothing of the
// machine.
func Predict(p core.Policy) core.Result {
	plan := PlanFor(p, core.Needs{}, func(string) int { return 0 }, 0)
	return Assess(p, Held{
		Job:                true,
		Token:              true,
		LowIntegrity:       plan.IntegrityLevel == "low",
		AppContainer:       plan.AppContainer,
		ContainerOffReason: plan.ContainerOffReason,
	})
}

// readBackWrites returns the write grants of p that no read grant holds:
// the container's ACE for each carries read (PlanFor), so that a read
// back beneath it, which Landlock refuses and the language refuses, is the
// language's alone on Windows. None where reads are not restricted.
func readBackWrites(p core.Policy) []string {
	if p.Read.Unrestricted {
		return nil
	}
	var out []string
	for _, w := range p.Write.Paths {
		if !slices.ContainsFunc(p.Read.Paths, func(r string) bool { return windowsWithin(w, r) }) {
			out = append(out, w)
		}
	}
	return out
}
