package kernelreport

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
)

// Kind is how a change between two reports counts.
type Kind string

// The kinds of change, in the order Changes lists them.
const (
	// Regressed: the newer report is worse here: a target the older
	// report's kernel refused is not refused, a target is gone, or a
	// cell's evidence got worse.
	Regressed Kind = "REGRESSED"
	// Improved: a target now refused that was not, or a cell whose
	// evidence got better.
	Improved Kind = "improved"
	// Changed: anything else that differs: the layer or errno of a
	// refusal, an expectation, a witness, the layers alone, a gap.
	Changed Kind = "changed"
	// Added: a target of the newer report only.
	Added Kind = "added"
	// Uncompared: a target the two machines cannot both make (the i386
	// entry one of them lacks, another architecture).
	Uncompared Kind = "not compared"
)

var kindOrder = []Kind{Regressed, Improved, Changed, Added, Uncompared}

// Change is one target, or one enforcement cell, that differs between
// two reports.
type Change struct {
	Kind Kind
	// Subject is the target's ID, or the cell: "no-fs on Linux".
	Subject string
	// What says what changed: what the old report said, then the new.
	What string
}

// String is the change as `sabline report diff` prints it.
func (c Change) String() string {
	return fmt.Sprintf("%-12s %s: %s", c.Kind, c.Subject, c.What)
}

// Changes is what differs between two reports of one system.
type Changes struct {
	Old, New Named
	// Machine lists what differs of the machines and builds (kernel,
	// Landlock ABI, i386 entry, build, schema); none of it is a
	// regression.
	Machine []string
	// Targets and Cells are the targets and the enforcement cells that
	// changed, regressions first.
	Targets, Cells []Change
}

// Regressions counts the targets and the cells that regressed.
func (c Changes) Regressions() (targets, cells int) {
	for _, t := range c.Targets {
		if t.Kind == Regressed {
			targets++
		}
	}
	for _, t := range c.Cells {
		if t.Kind == Regressed {
			cells++
		}
	}
	return targets, cells
}

// regressed reports whether the newer report is worse than the older:
// one target or cell regressed.
func (c Changes) regressed() bool {
	t, cl := c.Regressions()
	return t+cl > 0
}

// What the diff says where nothing changed.
const (
	textNoChange = "no target and no enforcement cell changed"
)

// Text is the changes as `sabline report diff` prints them, one line
// each, every text of the reports escaped (codes.TerminalSafe).
func (c Changes) Text() []byte {
	var b bytes.Buffer
	line := func(format string, args ...any) {
		b.WriteString(codes.TerminalSafe(fmt.Sprintf(format, args...)) + "\n")
	}
	line("old: %s", header(c.Old))
	line("new: %s", header(c.New))
	for _, m := range c.Machine {
		line("machine: %s", m)
	}
	if len(c.Targets)+len(c.Cells) == 0 {
		line("%s", textNoChange)
		return b.Bytes()
	}
	line("targets: %d changed", len(c.Targets))
	for _, t := range c.Targets {
		line("  %s", t)
	}
	line("enforcement cells: %d changed", len(c.Cells))
	for _, t := range c.Cells {
		line("  %s", t)
	}
	targets, cells := c.Regressions()
	line("regressed: %d targets, %d enforcement cells", targets, cells)
	return b.Bytes()
}

// header names a report: its file, system, kernel and schema.
func header(n Named) string {
	s := fmt.Sprintf("%s %s, Landlock ABI %d, %s (%s)", n.OS, n.Kernel, n.LandlockABI,
		buildText(n.Build), n.Schema)
	if n.Source != "" {
		s = n.Source + ": " + s
	}
	return s
}

// Diff compares the reports old and new, which must be of one system
// (an E301 error otherwise).
//
// A target regressed when old's verdict was refused and new's is not
// (unless new could not make it where the two machines differ: the i386
// entry one lacks, another architecture), or when it is in old only. It
// improved when new refused it and old did not. Any other difference of
// the observed outcome, the expectation, the witness, the layers alone
// or the gap is a change; a target in new only is added.
//
// A cell (an ENFORCES row on the reports' system) is compared where
// its evidence reads differently (Evidence.String); it regressed when
// a target of the row is now not stopped, or unknown, that was neither
// before, or the row was tested and is now untested, and improved when
// the targets not stopped or unknown are fewer, none of them new (one not
// stopped that is now unknown is no better), or an untested row now has
// every target stopped. Where a report is older than Schema, its cells
// are not recorded, and a change to or from that is neither.
func Diff(old, new Named) (Changes, error) {
	if old.OS != new.OS {
		return Changes{}, codes.Errorf(codes.E301,
			"report diff: %s is a report of %s and %s of %s: diff compares two reports of one system",
			old.Source, old.OS, new.Source, new.OS)
	}
	c := Changes{Old: old, New: new, Machine: machineChanges(old.Report, new.Report)}
	c.Targets = order(targetChanges(old.Report, new.Report))
	var cells []Change
	sys := new.System()
	for _, row := range confine.Enforces() {
		o, n := cellEvidence(row.ID, &old.Report), cellEvidence(row.ID, &new.Report)
		if o.String() == n.String() {
			continue
		}
		cells = append(cells, Change{Kind: cellKind(o, n), Subject: row.ID + " on " + sys.Title(),
			What: "was " + o.String() + "; now " + n.String()})
	}
	c.Cells = order(cells)
	return c, nil
}

// order sorts changes by kind, in kindOrder, keeping their order within
// a kind.
func order(cs []Change) []Change {
	var out []Change
	for _, k := range kindOrder {
		for _, c := range cs {
			if c.Kind == k {
				out = append(out, c)
			}
		}
	}
	return out
}

// machineChanges says what differs of the two machines and builds.
func machineChanges(old, new Report) []string {
	var out []string
	add := func(what, o, n string) {
		if o != n {
			out = append(out, fmt.Sprintf("%s: was %s, now %s", what, o, n))
		}
	}
	add("schema", old.Schema, new.Schema)
	add("kernel", old.Kernel, new.Kernel)
	add("Landlock ABI", fmt.Sprint(old.LandlockABI), fmt.Sprint(new.LandlockABI))
	add("i386 entry", orDash(i386Text(old)), orDash(i386Text(new)))
	add("build", buildText(old.Build), buildText(new.Build))
	return out
}

// targetChanges compares the targets of old and new, in new's order,
// then those of old only.
func targetChanges(old, new Report) []Change {
	olds := map[string]Target{}
	for _, t := range old.Targets {
		olds[t.ID] = t
	}
	news := map[string]bool{}
	var out []Change
	for _, n := range new.Targets {
		news[n.ID] = true
		o, ok := olds[n.ID]
		if !ok {
			out = append(out, Change{Kind: Added, Subject: n.ID,
				What: "in the new report only: " + verdictText(n)})
			continue
		}
		if c, ok := targetChange(old, new, o, n); ok {
			out = append(out, c)
		}
	}
	for _, o := range old.Targets {
		if !news[o.ID] {
			out = append(out, Change{Kind: Regressed, Subject: o.ID,
				What: "in the old report only: " + verdictText(o)})
		}
	}
	return out
}

// verdictText is a target's verdict and what stopped it: "refused
// (seccomp EPERM)".
func verdictText(t Target) string {
	if by := t.By(); by != "" {
		return fmt.Sprintf("%s (%s)", t.Verdict(), by)
	}
	return string(t.Verdict())
}

// targetChange compares one target of both reports; false when nothing
// compared differs.
func targetChange(old, new Report, o, n Target) (Change, bool) {
	var what []string
	kind := Changed
	ov, nv := o.Verdict(), n.Verdict()
	switch {
	case ov == VerdictRefused && nv == VerdictUnavailable && cannotBothMake(old, new, o, n):
		return Change{Kind: Uncompared, Subject: n.ID,
			What: fmt.Sprintf("was %s, now %s: %s", verdictText(o), verdictText(n),
				textMachinesDiffer)}, true
	case ov == VerdictRefused && nv != VerdictRefused:
		kind = Regressed
	case ov != VerdictRefused && nv == VerdictRefused:
		kind = Improved
	}
	if o.Observed != n.Observed {
		what = append(what, fmt.Sprintf("observed: was %s, now %s", verdictText(o), verdictText(n)))
	}
	if !sameOutcome(o.Expected, n.Expected) {
		what = append(what, fmt.Sprintf("expected: was %s, now %s", showOutcome(o.Expected),
			showOutcome(n.Expected)))
	}
	if !reflect.DeepEqual(o.Witness, n.Witness) {
		what = append(what, fmt.Sprintf("witness: was %s, now %s", o.WitnessText(), n.WitnessText()))
	}
	if !reflect.DeepEqual(o.LayersAlone, n.LayersAlone) {
		what = append(what, fmt.Sprintf("layers alone: was %s, now %s", o.Alone(), n.Alone()))
	}
	if o.Gap != n.Gap {
		what = append(what, fmt.Sprintf("gap: was %q, now %q", o.Gap, n.Gap))
	}
	if old.recordsRows() && new.recordsRows() && o.Row != n.Row {
		what = append(what, fmt.Sprintf("row: was %s, now %s", orDash(o.Row), orDash(n.Row)))
	}
	if len(what) == 0 {
		return Change{}, false
	}
	return Change{Kind: kind, Subject: n.ID, What: strings.Join(what, "; ")}, true
}

// textMachinesDiffer says why a target is not compared.
const textMachinesDiffer = "the two machines cannot both make it " +
	"(the i386 entry, or the architecture, differs)"

// cannotBothMake reports whether the target o of old and n of new is one
// the two machines cannot both make: one made through the i386 entry
// where the reports differ on it (or one did not record it), or any
// target where the builds' architectures differ.
func cannotBothMake(old, new Report, o, n Target) bool {
	if old.Build.Arch != new.Build.Arch {
		return true
	}
	i386 := o.Entry == EntryI386 || n.Entry == EntryI386
	same := (old.I386Entry == nil) == (new.I386Entry == nil) &&
		(old.I386Entry == nil || *old.I386Entry == *new.I386Entry)
	return i386 && !same
}

func sameOutcome(a, b *Outcome) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func showOutcome(o *Outcome) string {
	if o == nil {
		return "nothing"
	}
	return o.String()
}

// cellKind says how a cell's change from o to n counts; both are of
// one row, and read differently.
func cellKind(o, n Evidence) Kind {
	if !o.known() || !n.known() {
		return Changed
	}
	if o.State == Tested && n.State == Untested {
		return Regressed
	}
	was := map[string]bool{}
	for _, id := range slices.Concat(o.NotStopped, o.Unknown) {
		was[id] = true
	}
	for _, id := range slices.Concat(n.NotStopped, n.Unknown) {
		if !was[id] {
			return Regressed
		}
	}
	switch {
	case len(n.NotStopped)+len(n.Unknown) < len(o.NotStopped)+len(o.Unknown):
		// Fewer targets not shown stopped: one now unknown, whose run no
		// layer explains, is not one stopped.
		return Improved
	case o.State == Untested && n.stopped():
		return Improved
	}
	return Changed
}
