package kernelreport

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sabline/sabline/confine"
)

// Verdict is what became of one target, as a reader of the report puts
// it.
type Verdict string

// The verdicts. Only VerdictRefused is a target the kernel stopped;
// VerdictUnavailable is one that could not be made on the system, and
// is no evidence either way.
const (
	// VerdictRefused: a confinement layer stopped the attempt.
	VerdictRefused Verdict = "refused"
	// VerdictWent: the attempt went through; only the language holds it.
	VerdictWent Verdict = "went"
	// VerdictKilled: the attempt went through, and the victim process
	// died of it.
	VerdictKilled Verdict = "killed"
	// VerdictUnrefused: the attempt met the answer it meets unconfined
	// (a harmless errno): no layer changed it.
	VerdictUnrefused Verdict = "not refused"
	// VerdictUnavailable: the attempt cannot be made on this system.
	VerdictUnavailable Verdict = "unavailable"
	// VerdictUnknown: the run failed in a way no layer explains.
	VerdictUnknown Verdict = "unknown"
)

// Verdict says what became of the target, from its observed outcome and,
// for one that went through, its witness (a victim no longer alive).
func (t Target) Verdict() Verdict {
	o := t.Observed
	switch {
	case o.Kernel():
		return VerdictRefused
	case o.StoppedBy == Unavailable:
		return VerdictUnavailable
	case o.StoppedBy == ByLanguage && o.Errno != "":
		return VerdictUnrefused
	case o.StoppedBy == ByLanguage && t.victimDied():
		return VerdictKilled
	case o.StoppedBy == ByLanguage:
		return VerdictWent
	}
	return VerdictUnknown
}

// victimDied reports whether the confined run changed whether the
// victim is alive: "victim: alive ...".
func (t Target) victimDied() bool {
	for _, l := range t.Witness.Confined {
		if obj, fields, ok := strings.Cut(l, ": "); ok && obj == "victim" &&
			strings.Contains(" "+fields+" ", " alive ") {
			return true
		}
	}
	return false
}

// asExpected reports whether the observed outcome is the expected one;
// true where the report names no expectation.
func (t Target) asExpected() bool {
	return t.Expected == nil || *t.Expected == t.Observed
}

// By says what stopped the target, or what it met: "seccomp EPERM" for a
// refusal, "EPERM, as unconfined" for one no layer changed, "" where
// nothing stopped it or it could not be made.
func (t Target) By() string {
	switch t.Verdict() {
	case VerdictRefused:
		return t.Observed.String()
	case VerdictUnrefused:
		return t.Observed.Errno + ", as unconfined"
	case VerdictUnknown:
		return t.Observed.String()
	}
	return ""
}

// Alone says which layers stopped the target each alone: "landlock,
// seccomp", "no layer alone", or "not measured".
func (t Target) Alone() string {
	if t.LayersAlone == nil {
		return "not measured"
	}
	var names []string
	for _, name := range sortedKeys(t.LayersAlone) {
		if t.LayersAlone[name] {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "no layer alone"
	}
	return strings.Join(names, ", ")
}

// sortedKeys are the keys of m, sorted.
func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// WitnessText says what the witness showed: its kind, what the confined
// run changed and what the control changed: "files (confined: nothing
// changed; unconfined: files:outside/secret.txt: ctime mode)", or "none".
func (t Target) WitnessText() string {
	w := t.Witness
	if w.Kind == WitnessNone || w.Kind == "" {
		return "none"
	}
	return fmt.Sprintf("%s (confined: %s; unconfined: %s)", w.Kind, changed(w.Confined, false),
		changed(w.Unconfined, w.Unconfined == nil))
}

// changed lists the lines of one run's witness.
func changed(lines []string, noControl bool) string {
	switch {
	case noControl:
		return "no control"
	case len(lines) == 0:
		return "nothing changed"
	}
	return strings.Join(lines, ", ")
}

// EvidenceState is how much a report says of an ENFORCES cell.
type EvidenceState string

// The states of a cell's evidence.
const (
	// NoReport: no report of the cell's system was given.
	NoReport EvidenceState = "no report"
	// NotRecorded: the report is older than Schema: its targets name no
	// row, so which test the cell is not known.
	NotRecorded EvidenceState = "not recorded"
	// Untested: no target of the report names the row.
	Untested EvidenceState = "untested"
	// Tested: targets of the report name the row.
	Tested EvidenceState = "tested"
)

// What the evidence of a cell says, where it is not a count of targets.
const (
	textNoReport    = "no report"
	textNotRecorded = "not recorded: a report older than schema /4 names no rows"
	textUntested    = "untested: no target of the report names this row"
	// textUnknown is said of the targets whose verdict is unknown.
	textUnknown = "unknown (the run failed in a way no layer explains)"
)

// Evidence is what one system's report says of one ENFORCES cell: the
// targets that name the row, and which of them were not stopped.
type Evidence struct {
	State EvidenceState
	// Targets are the IDs of the targets that name the row, in the
	// report's order; NotStopped those no layer stopped (went, killed,
	// not refused), Unknown those whose run failed in a way no layer
	// explains (a run that timed out, a control that made no attempt),
	// which are neither stopped nor an escape, Unavailable those that
	// could not be made, and Unexpected those whose observed outcome is
	// not the expected.
	Targets     []string
	NotStopped  []string
	Unknown     []string
	Unavailable []string
	Unexpected  []string
	// Expectations is whether the report names expectations (Linux).
	Expectations bool
}

// cellEvidence is the evidence r gives of the row rowID: nil r is no
// report.
func cellEvidence(rowID string, r *Report) Evidence {
	switch {
	case r == nil:
		return Evidence{State: NoReport}
	case !r.recordsRows():
		return Evidence{State: NotRecorded}
	}
	e := Evidence{State: Untested}
	for _, t := range r.Targets {
		if t.Row != rowID {
			continue
		}
		e.State = Tested
		e.Targets = append(e.Targets, t.ID)
		e.Expectations = e.Expectations || t.Expected != nil
		switch t.Verdict() {
		case VerdictRefused:
		case VerdictUnavailable:
			e.Unavailable = append(e.Unavailable, t.ID)
		case VerdictUnknown:
			e.Unknown = append(e.Unknown, t.ID)
		default:
			e.NotStopped = append(e.NotStopped, t.ID)
		}
		if !t.asExpected() {
			e.Unexpected = append(e.Unexpected, t.ID)
		}
	}
	return e
}

// known reports whether the evidence is a statement about the targets:
// Tested or Untested.
func (e Evidence) known() bool { return e.State == Tested || e.State == Untested }

// stopped reports whether every target of the row was stopped: tested,
// none not stopped, none unknown, none unavailable.
func (e Evidence) stopped() bool {
	return e.State == Tested && len(e.NotStopped) == 0 && len(e.Unknown) == 0 &&
		len(e.Unavailable) == 0
}

// String says the evidence as the enforcement table gives it: "7 targets,
// all stopped as expected", "1 of 7 not stopped: files-stat-outside",
// "untested: ...".
func (e Evidence) String() string {
	switch e.State {
	case NoReport:
		return textNoReport
	case NotRecorded:
		return textNotRecorded
	case Untested:
		return textUntested
	}
	return strings.Join(e.parts(), "; ")
}

// parts are the parts of String for a row that was tested: the targets
// not stopped, those unknown, those that could not be made, and those not
// as expected.
func (e Evidence) parts() []string {
	n := len(e.Targets)
	if e.stopped() {
		switch {
		case len(e.Unexpected) > 0:
			return []string{targets(n) + ", all stopped", fmt.Sprintf(
				"%d by another layer than expected: %s", len(e.Unexpected),
				strings.Join(e.Unexpected, ", "))}
		case e.Expectations:
			return []string{targets(n) + ", all stopped as expected"}
		}
		return []string{targets(n) + ", all stopped"}
	}
	var parts []string
	if len(e.NotStopped) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d not stopped: %s", len(e.NotStopped), n,
			strings.Join(e.NotStopped, ", ")))
	}
	if len(e.Unknown) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d %s: %s", len(e.Unknown), n, textUnknown,
			strings.Join(e.Unknown, ", ")))
	}
	if len(e.Unavailable) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d could not be made here: %s", len(e.Unavailable),
			n, strings.Join(e.Unavailable, ", ")))
	}
	if len(e.Unexpected) > 0 {
		parts = append(parts, fmt.Sprintf("%d not as expected: %s", len(e.Unexpected),
			strings.Join(e.Unexpected, ", ")))
	} else if e.Expectations {
		parts = append(parts, "every outcome as expected")
	}
	return parts
}

// afterMissed is what String says after the targets not stopped, for a
// page that lists those as links.
func (e Evidence) afterMissed() string {
	if e.State != Tested || len(e.NotStopped) == 0 {
		return ""
	}
	return strings.Join(e.parts()[1:], "; ")
}

func targets(n int) string {
	if n == 1 {
		return "1 target"
	}
	return fmt.Sprintf("%d targets", n)
}

// Claim is what an ENFORCES cell says the system holds, as the report
// puts it: "held", "held in part", "not held".
func Claim(h confine.Holds) string {
	switch h {
	case confine.HoldsYes:
		return "held"
	case confine.HoldsPartly:
		return "held in part"
	case confine.HoldsNo:
		return "not held"
	}
	return string(h)
}
