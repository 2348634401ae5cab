package linux

import (
	"strconv"

	"github.com/sabline/sabline/confine/core"
)

// This file turns what a system held into a Result, the level a receipt
// records. A level is what was applied, never what was asked for: full
// only when every file, network and process limit of the policy is held
// by a layer that was applied; partial when some are, and the reason then
// names each that is not, joined by "; "; none when no layer that holds a
// limit was applied, or when the policy enforces nothing. The calls the
// seccomp allow-list leaves out (ptrace, mount and the like) are hardening
// every run gets whatever its budget: no level counts it, though a reason that
// says seccomp is missing names it among what is lost.

// Held is what Apply got from a Linux kernel.
type Held struct {
	// LandlockABI is the ABI of the Landlock ruleset applied, 0 when none
	// was.
	LandlockABI int
	// Missing are the granted paths that did not exist yet, each held
	// beneath the nearest directory above it that did, as ApplyLandlock
	// reports them.
	Missing []string
	// Seccomp is true when the seccomp filter was installed on every
	// thread.
	Seccomp bool
	// SeccompTruncate is true when that filter refuses the truncations
	// Landlock below the ABI of the truncate right does not check
	// (truncate(2), an open with O_TRUNC not to write): it was built so
	// beside such a ruleset.
	SeccompTruncate bool
	// SeccompFailure is why the filter was not installed, when Apply
	// knows it: the reason says it once, in the sentence that names what
	// is then not held.
	SeccompFailure string
	// CapabilitiesDropped is true when every thread gave up every
	// capability but the two that let root read and write files as
	// before. It hardens the run under the other layers; no limit of a
	// budget rests on it alone, so it does not change the level: a run
	// with neither Landlock nor seccomp is level none with or without it.
	CapabilitiesDropped bool
	// CapabilitiesFailure is why the capabilities were not dropped, when
	// the drop failed: the reason says it, and the level stands.
	CapabilitiesFailure string
	// Problems are what else the apply could not do, one gap each: a
	// limit it could not set, or why Landlock was not applied. Each is a
	// limit not held.
	Problems []core.Gap
	// Carving is how Landlock's rules were carved around the guarded
	// locations: a location the kernel does not hold is a limit not held,
	// and the directories held as their entries are said in the reason.
	Carving Carving
	// DeviceNodes are the granted paths beneath which a device node could
	// still be opened, which Landlock cannot tell from a file: each
	// reaches a mount without nodev (deviceGrants), where the worker had
	// no mount namespace of its own to add it in, or a remount failed.
	// Each is a limit the language alone holds; DeviceNodesWhy says why.
	DeviceNodes    []string
	DeviceNodesWhy string
}

// Assess returns the level of a run held by Landlock and seccomp as
// h says.
//
// Seccomp holds the closed network (no socket at all), signals to other
// processes and, under any network, every socket of the worker's own: its
// supervisor makes its connections (Brokered), and Landlock refuses its
// TCP connects and binds from ABI 4. So a Landlock ABI below 4 or 6
// leaves nothing unheld there when seccomp is installed. Below ABI 3
// Landlock holds no truncation, and the filter then refuses the calls
// that truncate unchecked (SeccompTruncate); without it any file the
// worker's user may write may be truncated, whatever the budget grants,
// the guarded locations among them. The level is none when neither
// Landlock nor seccomp was applied: the capability drop alone holds no
// limit.
func Assess(p core.Policy, h Held) core.Result {
	if !p.Enforced {
		return core.OffResult(p)
	}
	var layers []string
	var gaps []core.Gap
	unheld := func(layer, text string) {
		gaps = append(gaps, core.Gap{Layer: layer, Kind: core.GapUnheld, Text: text})
	}
	abi := h.LandlockABI
	if abi > 0 {
		layers = append(layers, core.LayerLandlock(abi))
	}
	if h.Seccomp {
		layers = append(layers, core.LayerSeccomp)
	}
	if h.CapabilitiesDropped {
		layers = append(layers, core.LayerCapabilities)
	}

	if abi == 0 {
		var lost []string
		if !p.Read.Unrestricted {
			lost = append(lost, "reads")
		}
		if !p.Write.Unrestricted {
			lost = append(lost, "writes")
		}
		if p.Read.Unrestricted || p.Write.Unrestricted {
			lost = append(lost, "the guarded locations under a grant of every path")
		}
		if len(lost) > 0 {
			unheld(core.LayerLandlockFamily, "Landlock was not applied: "+core.JoinAnd(lost)+" are not held")
		}
	}
	// Below ABI 3 Landlock refuses no truncation (landlockTruncateUnheld):
	// unless the filter refuses it (SeccompTruncate), any file the
	// worker's user may write may be truncated, whatever the budget
	// grants, the guarded locations (the receipts, /etc/shadow, ~/.ssh)
	// among them, beneath a grant or outside every one.
	filtered := h.Seccomp && h.SeccompTruncate
	if abi > 0 && landlockWriteRights(abi)&LandlockFSTruncate == 0 && !filtered {
		unheld(core.LayerLandlockFamily, "Landlock ABI "+strconv.Itoa(abi)+
			" cannot hold truncating a file (it needs "+ABIText(landlockABITruncate)+"): "+
			landlockTruncateUnheld)
	}
	for _, m := range h.Missing {
		unheld(core.LayerLandlockFamily,
			m+" does not exist yet: it is held beneath the nearest directory "+
				"above it that does")
	}

	// Under a net grant the worker makes no socket of its own (seccomp)
	// nor TCP connection or listener (Landlock from ABI 4): its supervisor
	// makes each connection the budget grants.
	info := LandlockABIOf(abi)
	tcp := info.Net&LandlockNetBindTCP != 0
	if Brokered(p) {
		gaps = append(gaps, core.Gap{Layer: core.LayerBroker, Kind: core.GapNote, Text: brokeredNote})
	}

	if !h.Seccomp {
		var lost []string
		if abi > 0 {
			lost = append(lost, "forking a process (Landlock refuses executing a file)")
		} else {
			lost = append(lost, "starting a process")
		}
		switch {
		case p.Network.Mode == core.NetClosed && tcp:
			lost = append(lost, "sockets other than TCP")
		case p.Network.Mode == core.NetClosed:
			lost = append(lost, "the closed network")
		case tcp:
			lost = append(lost, "the worker's own UDP, Unix, netlink and raw sockets (Landlock refuses "+
				"its TCP connections), which reach past the hosts the supervisor connects to")
		default:
			lost = append(lost, "the worker's own sockets, which reach past the hosts the supervisor "+
				"connects to")
		}
		if info.Scopes&LandlockScopeSignal == 0 { // Landlock's scope holds signals
			lost = append(lost, "signals to other processes")
		}
		lost = append(lost, "every system call outside the allow-list")
		why := "seccomp was not installed"
		if h.SeccompFailure != "" {
			why += " (" + h.SeccompFailure + ")"
		}
		unheld(core.LayerSeccomp, why+": "+core.JoinAnd(lost)+" are not held")
	}
	if len(h.DeviceNodes) > 0 {
		unheld(core.LayerLanguage, deviceGap(h.DeviceNodes, h.DeviceNodesWhy))
	}
	if len(h.Carving.LanguageOnly) > 0 {
		unheld(core.LayerLanguage, "the guarded locations "+shortList(h.Carving.LanguageOnly, 4)+
			" are held by the language only: the grant above them has too many entries to hold one by "+
			"one, or one could not be listed")
	}
	gaps = append(gaps, h.Problems...)
	gaps = append(gaps, core.ModeGaps(p)...)
	gaps = append(gaps, core.WidenedGaps(p, abi > 0 && len(h.Carving.LanguageOnly) == 0)...)
	carved := func(sentence string, paths []string) {
		if len(paths) > 0 {
			gaps = append(gaps, core.Gap{Layer: core.LayerLandlockFamily, Kind: core.GapNote,
				Text: sentence + " (" + shortList(paths, 4) + ")"})
		}
	}
	carved(expandedNote, h.Carving.Expanded)
	carved(withheldNote, h.Carving.Withheld)
	carved(needsWithheldNote, h.Carving.NeedsWithheld)
	carved(unlistedNote, h.Carving.Unlisted)
	if h.CapabilitiesFailure != "" {
		gaps = append(gaps, core.Gap{Layer: core.LayerCapabilities, Kind: core.GapHeld,
			Text: "the capabilities were not dropped (" + h.CapabilitiesFailure +
				"): no limit rests on them alone"})
	}
	return core.ResultOf(abi > 0 || h.Seccomp, layers, gaps)
}

// brokeredNote says how a run's net grants are held on Linux.
const brokeredNote = "The worker makes no connection of its own (seccomp refuses its sockets, " +
	"Landlock its TCP connects and binds): its supervisor makes each one the budget grants, " +
	"counted with the grant's @N, to an address it looked the granted name up to itself " +
	"(a public one, unless the grant names the address), and hands the connected socket in"

// expandedNote says what Carving.Expanded means to a run.
const expandedNote = "The grants at or above homes and guarded locations are held as the entries " +
	"the directories on the way had when the run started: no entry can be made in those " +
	"directories, or removed from them, and none that another process makes there " +
	"during the run is reached (a new file in a home, a ~/.bashrc, a /run/secrets)"

// unlistedNote says what Carving.Unlisted means to a run.
const unlistedNote = "Directories on the way to a guarded location that could not be listed when " +
	"the worker started (another user's home, say) are given no " +
	"rule: nothing in them is reached through the grant above them"

// withheldNote says what Carving.Withheld means to a run.
const withheldNote = "Granted paths left out of the kernel's ruleset, so that the kernel refuses " +
	"them: each lay, as it resolved when the worker started, in a location no " +
	"grant reaches, or a link was made on its way after the run was admitted"

// needsWithheldNote says what Carving.NeedsWithheld means to a run.
const needsWithheldNote = "Paths the interpreter reads left out of the kernel's ruleset, so " +
	"that the kernel refuses them: each led, through a link on its way when the worker started, " +
	"into a location no grant reaches or a home's dot-entry, or to a directory above one"

// Predict returns the level a run of p gets where every Linux layer is
// present: Landlock at LandlockMaxABI, seccomp and the capability drop,
// under a supervisor that can start its worker in a mount namespace of its
// own (root's), where device nodes beneath a granted path are refused by
// the kernel: for a user who cannot, a run with a grant on a mount without
// nodev is partial (DeviceNodesHere). It reads nothing of the machine, as
// an audit made anywhere must read the same.
func Predict(p core.Policy) core.Result {
	return Assess(p, Held{LandlockABI: LandlockMaxABI, Seccomp: true, CapabilitiesDropped: true})
}
