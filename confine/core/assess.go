package core

import (
	"strconv"
	"strings"

	"github.com/sabline/sabline/budget"
)

// This file holds what every system's assessment says alike: the reason
// of a full level, the policy that enforces nothing, the mode, the
// widening modules' notes and the hosts the language alone holds.

// FullReason is the reason of a full level.
const FullReason = "every file, network and process limit of this budget is held by the kernel"

// OffResult is the level of a policy that enforces nothing.
func OffResult(p Policy) Result {
	return NotConfined(p.OffReason())
}

// ModeGaps is what the confine mode of p adds to a reason: under strict,
// that no granted module widened the policy.
func ModeGaps(p Policy) []Gap {
	if !p.Strict {
		return nil
	}
	return []Gap{{Layer: LayerLanguage, Kind: GapMode,
		Text: "--confine strict: no granted module widened the policy"}}
}

// WidenedGaps are the notes of the modules that widened p, on a system
// where guardedHeld says whether the kernel holds the guarded locations
// out of a widening to any path (Policy.WidenedReason).
func WidenedGaps(p Policy, guardedHeld bool) []Gap {
	var out []Gap
	for _, s := range p.widenedSentences(guardedHeld) {
		out = append(out, Gap{Layer: LayerLanguage, Kind: GapNote, Text: s})
	}
	return out
}

// HostGaps names, on a system whose confinement holds neither hosts nor
// ports nor datagrams (a sandbox profile, or a container that admits UDP
// wherever it admits TCP), what the language alone holds of p's network:
// for each net:HOST grant, its host and port; for each UDP grant, its
// host and port, and that binding a UDP port is held by it alone; and,
// where the network is open and no UDP is granted, UDP itself.
func HostGaps(p Policy) []Gap {
	var out []Gap
	say := func(text string) {
		out = append(out, Gap{Layer: LayerLanguage, Kind: GapUnheld, Text: text})
	}
	language := func(e Endpoint, udp bool) {
		grant := budget.Item{Kind: budget.Net, UDP: udp, Host: e.Host, Port: e.Port}.String()
		switch {
		case e.Host == "":
		case e.Port != 0:
			say("the host and port in " + grant + " are held by the language alone")
		default:
			say("the host in " + grant + " is held by the language alone")
		}
	}
	if p.Network.Mode == NetHosts {
		for _, e := range p.Network.Hosts {
			language(e, false)
		}
	}
	for _, e := range p.Network.UDP {
		language(e, true)
	}
	switch {
	case len(p.Network.UDP) > 0:
		say("binding a UDP port is held by the language alone")
	case p.Network.Mode != NetClosed:
		say("UDP, which no grant allows, is held by the language alone")
	}
	return out
}

// GuardedGaps names, on a system where no layer holds the guarded
// locations out of a grant of every path (a sandbox profile, a run whose
// container is off), the directions p leaves unrestricted: there the
// guarded locations, which Landlock holds out of such a grant, are the
// language's alone. because says why, as the reason ends it.
func GuardedGaps(p Policy, because string) []Gap {
	var dirs []string
	if p.Read.Unrestricted {
		dirs = append(dirs, "reads")
	}
	if p.Write.Unrestricted {
		dirs = append(dirs, "writes")
	}
	if len(dirs) == 0 {
		return nil
	}
	return []Gap{{Layer: LayerLanguage, Kind: GapUnheld, Text: JoinAnd(dirs) +
		" of the guarded locations are held by the language alone: " + because}}
}

// ReachedGaps names the guarded locations that a rule on a directory
// above them reaches (guard.Reached) as held by the language alone, at
// most four of them (JoinSome); because says how the rule reaches them.
func ReachedGaps(reached []string, because string) []Gap {
	if len(reached) == 0 {
		return nil
	}
	return []Gap{{Layer: LayerLanguage, Kind: GapUnheld, Text: "the guarded locations " +
		JoinSome(reached) + " are held by the language alone: " + because}}
}

// JoinSome joins the first four of items as JoinAnd does, then says how
// many more there are, so that a reason names a line of them, not a
// great many.
func JoinSome(items []string) string {
	const n = 4
	if len(items) <= n {
		return JoinAnd(items)
	}
	return strings.Join(items[:n], ", ") + " and " + strconv.Itoa(len(items)-n) + " more"
}

// JoinAnd joins phrases as a list in a sentence: "a", "a and b",
// "a, b and c".
func JoinAnd(phrases []string) string {
	if len(phrases) < 2 {
		return strings.Join(phrases, "")
	}
	return strings.Join(phrases[:len(phrases)-1], ", ") + " and " + phrases[len(phrases)-1]
}
