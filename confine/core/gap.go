package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// GapKind is what a Gap says of a limit of the budget, and so whether it
// lowers the level.
type GapKind string

// The kinds of gap, all of them exported so that a reader of a receipt
// can tell them apart. Only GapUnheld lowers a level.
const (
	// GapUnheld: a limit of the budget no layer of the operating system
	// holds (the language alone does, or nothing): the level is partial
	// at best.
	GapUnheld GapKind = "unheld"
	// GapMode: the confine mode the policy was made in, said beside the
	// limits; the level is unchanged.
	GapMode GapKind = "mode"
	// GapNote: what a module or a grant makes of the policy, or how the
	// kernel holds a grant: said after the limits, in sentences of its
	// own; the level is unchanged.
	GapNote GapKind = "note"
	// GapHeld: what holds a limit that stands, or a layer that failed with
	// no limit resting on it alone: said last; the level is unchanged.
	GapHeld GapKind = "held"
)

// Layer names that a Gap may carry beside those of Result.Layers.
const (
	// LayerMemory names what holds the memory limit in a Gap: a cgroup,
	// the address-space limit, the worker's watch of its memory.
	LayerMemory = "memory"
	// LayerApply names the apply itself in a Gap: a failure of no one
	// layer (a knock-out build leaving layers out, say).
	LayerApply = "apply"
	// LayerPool names a pool's workers in a Gap: what they read beside
	// the budget, and whose budget their kernel layers hold.
	LayerPool = "pool"
	// LayerBroker names the supervisor's connection broker in a Gap: it
	// makes every connection of a run whose worker may make none.
	LayerBroker = "broker"
	// LayerUnapplied names the one Gap of a run that ended before its
	// policy was applied (NotApplied): no layer was asked anything yet;
	// or of a run whose receipt was never finished (Unrecorded), which
	// says nothing of what was applied.
	LayerUnapplied = "unapplied"
)

// A Gap is one fact a run's reason says about how its budget is held: a
// limit no layer holds, or how one is held. The level is computed from
// the gaps' kinds alone (levelOf), and the reason is rendered from them
// (render); neither is ever read back out of the other.
type Gap struct {
	// Layer is the layer the fact is about: a name of Result.Layers
	// (Landlock as LayerLandlockFamily, at whatever ABI), "language",
	// LayerMemory, LayerApply, LayerPool, LayerBroker or LayerUnapplied.
	Layer string `json:"layer"`
	// Kind is what the fact says, and whether it lowers the level.
	Kind GapKind `json:"kind"`
	// Text is the fact in words, as the reason says it.
	Text string `json:"text"`
}

// Why a Result's gaps are refused (Result.Check).
var (
	errTooManyGaps = errors.New("more gaps than a confinement has")
	errGapKind     = errors.New("a gap of no known kind")
	errGapLevel    = errors.New("a level its gaps do not make")
)

// maxGaps bounds the gaps of one Result read from a worker or a receipt;
// the most a system's assessment makes is under 20.
const maxGaps = 64

// levelOf is the level of a run with gaps: none when no layer that holds
// a limit was applied (holding is false), partial when a limit is
// unheld, full otherwise.
func levelOf(holding bool, gaps []Gap) Level {
	switch {
	case !holding:
		return None
	case hasUnheld(gaps):
		return Partial
	}
	return Full
}

func hasUnheld(gaps []Gap) bool {
	for _, g := range gaps {
		if g.Kind == GapUnheld {
			return true
		}
	}
	return false
}

// render is the reason of a run at level with gaps, said once, in this
// order: the limits not held, or at full that every limit is held; the
// mode in parentheses; the notes as sentences of their own; what holds
// the limits that stand.
func render(level Level, gaps []Gap) string {
	var unheld, modes, notes, held []string
	for _, g := range gaps {
		switch g.Kind {
		case GapUnheld:
			unheld = append(unheld, g.Text)
		case GapMode:
			modes = append(modes, g.Text)
		case GapNote:
			notes = append(notes, g.Text)
		case GapHeld:
			held = append(held, g.Text)
		}
	}
	var b strings.Builder
	if level == Full {
		b.WriteString(FullReason)
	} else {
		b.WriteString(strings.Join(unheld, "; "))
	}
	for _, m := range modes {
		b.WriteString(" (" + m + ")")
	}
	for _, n := range notes {
		b.WriteString(". " + n)
	}
	for _, h := range held {
		b.WriteString("; " + h)
	}
	return b.String()
}

// ResultOf makes the Result of the layers applied and the gaps: the level
// from the gaps' kinds, the reason rendered from them.
func ResultOf(holding bool, layers []string, gaps []Gap) Result {
	level := levelOf(holding, gaps)
	return Result{Level: level, Reason: render(level, gaps), Layers: append([]string{}, layers...),
		Gaps: gaps}
}

// reasonNotApplied is the reason of NotApplied's Result.
const reasonNotApplied = "the run ended before the policy was applied"

// NotApplied is the Result of a run that ended before its policy was
// applied (a command line refused, a program that does not compile, a
// worker that died first): level none, which says nothing of what the
// system can hold. Unapplied tells it from any other.
func NotApplied() Result {
	return ResultOf(false, nil, []Gap{{Layer: LayerUnapplied, Kind: GapUnheld,
		Text: reasonNotApplied}})
}

// reasonUnrecorded is the reason of Unrecorded's Result.
const reasonUnrecorded = "not known: the run's receipt was not finished, so what its worker " +
	"applied was not recorded"

// Unrecorded is the Result a receipt reserved before its run carries until
// the run's end finishes it: level none, which says nothing of the run,
// whose worker may have been held in full: a receipt left so (its
// supervisor killed, or unable to write) says it is not known, never that
// the run ended before its policy was applied. Unapplied tells it from a
// run's own Result too, so that no level change is read from it.
func Unrecorded() Result {
	return ResultOf(false, nil, []Gap{{Layer: LayerUnapplied, Kind: GapUnheld,
		Text: reasonUnrecorded}})
}

// Unapplied reports whether r is of a run that ended before its policy
// was applied (NotApplied), or whose receipt was not finished
// (Unrecorded), read from its gaps' layers.
func (r Result) Unapplied() bool {
	return slices.ContainsFunc(r.Gaps, func(g Gap) bool { return g.Layer == LayerUnapplied })
}

// NotConfined is the Result of a run of which the operating system was
// asked to hold nothing, for why: level none, no layers, the reason why.
func NotConfined(why string) Result {
	return ResultOf(false, nil, []Gap{{Layer: LayerApply, Kind: GapUnheld, Text: why}})
}

// With returns r with gaps added after its own, its level and reason made
// again from all of them. A run at level none stays at none: a fact said
// of it holds no limit. A fact that holds no limit is a Gap of kind GapHeld;
// a limit found unheld lowers a full level to partial.
func (r Result) With(gaps ...Gap) Result {
	all := append(slices.Clone(r.Gaps), gaps...)
	return ResultOf(r.Level != None, r.Layers, all)
}

// Without returns r's gaps with those of layer left out, for comparing
// what two runs' kernel layers held apart from what their memory limits,
// say, added.
func (r Result) Without(layer string) []Gap {
	var out []Gap
	for _, g := range r.Gaps {
		if g.Layer != layer {
			out = append(out, g)
		}
	}
	return out
}

// Except returns r less its gaps of layer, its level and reason made
// again from the rest: what r says apart from that layer (a run's kernel
// layers apart from what holds its memory limit, say). The inverse of
// With for gaps of one layer.
func (r Result) Except(layer string) Result {
	return ResultOf(r.Level != None, r.Layers, r.Without(layer))
}

// HoldsAsExpected reports whether r holds a run as this machine was
// expected to (a run that asked for no level): at least level, the limits
// the language alone holds aside (Except LayerLanguage), and with each of
// layers among its own.
func (r Result) HoldsAsExpected(level Level, layers []string) bool {
	for _, l := range layers {
		if !slices.Contains(r.Layers, l) {
			return false
		}
	}
	return r.Except(LayerLanguage).Level.Rank() >= level.Rank()
}

// BelowExpected says why r, the confinement whose names, is refused: it
// does not hold a subject ("run", "pool") as this machine holds such a
// subject, at level with layers (HoldsAsExpected), which it did not ask
// for. then says what became of it, and ask where a level is asked for,
// which the text ends naming r's.
func (r Result) BelowExpected(subject string, level Level, layers []string, whose, then,
	ask string) string {
	return fmt.Sprintf("this machine holds such a %s at level %s, with %s (the limits the "+
		"language alone holds aside), and %s %s, with %s (%s): held less than that, %s; to "+
		"run it held so, ask for that level (%s %s)", subject, level, LayersText(layers), whose,
		r.Level, LayersText(r.Layers), r.Reason, then, ask, r.Level)
}

// LayersText names layers for a message: "no layer" for none.
func LayersText(layers []string) string {
	if len(layers) == 0 {
		return "no layer"
	}
	return JoinAnd(layers)
}

// Check reports whether r is one its gaps could have made: at most
// maxGaps, each of a known kind, and the level theirs. A Result read from
// a worker or a receipt is checked before it is believed.
func (r Result) Check() error {
	if len(r.Gaps) > maxGaps {
		return errTooManyGaps
	}
	for _, g := range r.Gaps {
		switch g.Kind {
		case GapUnheld, GapMode, GapNote, GapHeld:
		default:
			return errGapKind
		}
	}
	if r.Level != None && r.Level != levelOf(true, r.Gaps) {
		return errGapLevel
	}
	return nil
}
