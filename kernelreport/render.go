package kernelreport

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/receipt"
)

// What the rendered report says around its tables.
const (
	title = "Sabline kernel report"
	// introText opens the report.
	introText = "What the operating system stopped when nothing but Sabline's confinement held " +
		"the run: each escape target is run by the knock-out build, where every budget check " +
		"passes, confined as a run always is."
	// enforcesIntro is said above the enforcement table.
	enforcesIntro = "Each row of the ENFORCES table (docs/os-enforces.md), for each system: what " +
		"the table claims the system's layers hold (held, held in part, not held) and with which " +
		"layers, then the evidence of that system's report, the escape targets that test the row."
	// targetsIntro is said above each report's escape targets.
	targetsIntro = "Each target, in the catalogue's order: its verdict on the knock-out build, " +
		"confined (refused by a layer, went, killed, not refused: it met the answer it meets " +
		"unconfined, unavailable here), what stopped it, what the harness read outside the worker " +
		"(the confined run beside the unconfined control), and which layers stopped it each alone."
	// noReportsText is said where no report was given.
	noReportsText = "No report was given."
)

// page is what both renderings show, worked out once.
type page struct {
	Title, Intro, EnforcesIntro, TargetsIntro string
	Summary                                   []string
	Systems                                   []string // column titles
	Reports                                   []reportView
	Rows                                      []rowView
}

// reportView is one report as the page shows it.
type reportView struct {
	Report
	Title   string // "Linux"
	Source  string // the file it was read from, or ""
	I386    string // "yes", "no", "not recorded" or "" off linux/amd64
	Counts  string
	Targets []targetView
}

// targetView is one target as the page shows it.
type targetView struct {
	Target
	Anchor   string
	Verdict  Verdict
	Class    string // the verdict as a CSS class: "v-not-refused"
	By       string
	Expected string // the expectation where the observed outcome differs
	Witness  string
	Alone    string
}

// rowView is one ENFORCES row, with a cell per system.
type rowView struct {
	ID, Item string
	Cells    []cellView
}

// cellView is what a row claims of one system, beside the evidence of
// that system's report.
type cellView struct {
	System   string
	Holds    string // confine.Holds, for the HTML's class, and unshownClass
	Claim    string
	Layers   string
	Text     string
	Evidence Evidence
	Said     string // Evidence.String
	Missed   []link // the targets not stopped, linked
	Rest     string // what Said says after them
}

// unshownClass marks a cell that claims the system holds its row where
// the report does not show it (no report, no target names the row, or a
// target of it was not stopped): its claim is not styled as held.
const unshownClass = "unshown"

// link is a target named in a cell, and its row's anchor on the page
// ("" where the page has no such row).
type link struct{ ID, Anchor string }

// newPage works out the page of the reports, in the order of
// confine.Systems; where two are of one system, the first is the
// system's evidence.
func newPage(reports []Named) page {
	p := page{Title: title, Intro: introText, EnforcesIntro: enforcesIntro,
		TargetsIntro: targetsIntro}
	sorted := append([]Named(nil), reports...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return sysIndex(sorted[i].OS) < sysIndex(sorted[j].OS)
	})
	bySys := map[confine.System]*Report{}
	anchors := map[confine.System]map[string]string{}
	for i, r := range sorted {
		rv := reportView{Report: r.Report, Title: r.System().Title(), Source: r.Source,
			I386: i386Text(r.Report), Counts: countsText(r.Report)}
		prefix := fmt.Sprintf("t%d-", i+1)
		ids := map[string]string{}
		for j, t := range r.Targets {
			tv := targetView{Target: t, Anchor: fmt.Sprintf("%s%d", prefix, j+1), Verdict: t.Verdict(),
				Class: "v-" + strings.ReplaceAll(string(t.Verdict()), " ", "-"), By: t.By(),
				Witness: t.WitnessText(), Alone: t.Alone()}
			if !t.asExpected() {
				tv.Expected = t.Expected.String()
			}
			ids[t.ID] = tv.Anchor
			rv.Targets = append(rv.Targets, tv)
		}
		if _, ok := bySys[r.System()]; !ok {
			bySys[r.System()] = &sorted[i].Report
			anchors[r.System()] = ids
		}
		p.Reports = append(p.Reports, rv)
	}
	claims, evidence, shown := map[confine.Holds]int{}, map[string]int{}, 0
	for _, sys := range confine.Systems() {
		p.Systems = append(p.Systems, sys.Title())
	}
	for _, row := range confine.Enforces() {
		rv := rowView{ID: row.ID, Item: row.Item}
		for _, sys := range confine.Systems() {
			c, _ := row.Cell(sys)
			ev := cellEvidence(row.ID, bySys[sys])
			cv := cellView{System: sys.Title(), Holds: string(c.Holds), Claim: Claim(c.Holds),
				Layers: strings.Join(c.Layers, ", "), Text: c.Text, Evidence: ev, Said: ev.String(),
				Rest: ev.afterMissed()}
			for _, id := range ev.NotStopped {
				cv.Missed = append(cv.Missed, link{ID: id, Anchor: anchors[sys][id]})
			}
			if c.Holds == confine.HoldsYes && !ev.stopped() {
				// A claim the report does not show is not styled as one
				// it does: every target of the row stopped.
				cv.Holds += " " + unshownClass
			} else if c.Holds == confine.HoldsYes {
				shown++
			}
			claims[c.Holds]++
			evidence[evidenceKind(ev)]++
			rv.Cells = append(rv.Cells, cv)
		}
		p.Rows = append(p.Rows, rv)
	}
	p.Summary = append(p.Summary, fmt.Sprintf(
		"Enforcement cells: %d held (%d of them shown here: every target of the row stopped), "+
			"%d held in part, %d not held.",
		claims[confine.HoldsYes], shown, claims[confine.HoldsPartly], claims[confine.HoldsNo]))
	var parts []string
	for _, k := range evidenceKinds {
		if evidence[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", evidence[k], k))
		}
	}
	p.Summary = append(p.Summary, "Their evidence: "+strings.Join(parts, ", ")+".")
	if len(p.Reports) == 0 {
		p.Summary = append(p.Summary, noReportsText)
	}
	for _, r := range p.Reports {
		p.Summary = append(p.Summary, fmt.Sprintf("Escape targets, %s: %s.", r.Title, r.Counts))
	}
	return p
}

// The kinds of evidence the summary counts cells by, in its order.
const (
	kindStopped  = "with every target stopped"
	kindMissed   = "with targets not stopped"
	kindUnknown  = "with targets unknown"
	kindNotMade  = "with targets that could not be made"
	kindUntested = "untested"
	kindNoRecord = "not recorded"
	kindNoReport = "without a report"
)

var evidenceKinds = []string{kindStopped, kindMissed, kindUnknown, kindNotMade, kindUntested,
	kindNoRecord, kindNoReport}

// evidenceKind is the kind the summary counts ev as.
func evidenceKind(ev Evidence) string {
	switch {
	case ev.State == NoReport:
		return kindNoReport
	case ev.State == NotRecorded:
		return kindNoRecord
	case ev.State == Untested:
		return kindUntested
	case len(ev.NotStopped) > 0:
		return kindMissed
	case len(ev.Unknown) > 0:
		return kindUnknown
	case len(ev.Unavailable) > 0:
		return kindNotMade
	}
	return kindStopped
}

// sysIndex is the place of the system goos names in confine.Systems.
func sysIndex(goos string) int {
	for i, s := range confine.Systems() {
		if string(s) == goos {
			return i
		}
	}
	return len(confine.Systems())
}

// i386Text says whether the report's kernel offers the i386 entry.
func i386Text(r Report) string {
	switch {
	case r.I386Entry != nil && *r.I386Entry:
		return "yes"
	case r.I386Entry != nil:
		return "no"
	case r.Schema == Schema2 && r.Build.Arch == "amd64" && r.OS == string(confine.Linux):
		return "not recorded"
	}
	return ""
}

// verdictOrder is the order in which counts name the verdicts.
var verdictOrder = []Verdict{VerdictRefused, VerdictWent, VerdictKilled, VerdictUnrefused,
	VerdictUnavailable, VerdictUnknown}

// countsText counts the report's targets by verdict: "201 targets: 192
// refused, 2 went, 3 not refused, 4 unavailable; 4 not as expected".
func countsText(r Report) string {
	n := map[Verdict]int{}
	unexpected := 0
	for _, t := range r.Targets {
		n[t.Verdict()]++
		if !t.asExpected() {
			unexpected++
		}
	}
	var parts []string
	for _, v := range verdictOrder {
		if n[v] > 0 || v == VerdictRefused {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	s := targets(len(r.Targets)) + ": " + strings.Join(parts, ", ")
	if unexpected > 0 {
		s += fmt.Sprintf("; %d not as expected", unexpected)
	}
	return s
}

// Markdown renders the reports as Markdown, for a CI job's summary or a
// terminal: the summary, a header per report, the enforcement table with
// each system's evidence, and each report's escape targets. Every text
// of a report is escaped: it can add no markup, link or control
// character.
func Markdown(reports []Named) []byte {
	p := newPage(reports)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", p.Title, p.Intro)
	for _, s := range p.Summary {
		fmt.Fprintf(&b, "- %s\n", md(s))
	}
	if len(p.Reports) > 0 {
		b.WriteString("\n## Reports\n\n" +
			"| system | kernel | Landlock ABI | i386 entry | build | schema | file |\n" +
			"|---|---|---|---|---|---|---|\n")
		for _, r := range p.Reports {
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s |\n", md(r.Title), md(r.Kernel),
				r.LandlockABI, md(orDash(r.I386)), md(buildText(r.Build)), md(r.Schema),
				md(orDash(r.Source)))
		}
	}
	fmt.Fprintf(&b, "\n## Enforcement table\n\n%s\n\n| row | item |", md(p.EnforcesIntro))
	for _, s := range p.Systems {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(p.Systems)) + "\n")
	for _, row := range p.Rows {
		fmt.Fprintf(&b, "| %s | %s |", code(row.ID), md(row.Item))
		for _, c := range row.Cells {
			claim := "**" + c.Claim + "**"
			if c.Layers != "" {
				claim += " (" + md(c.Layers) + ")"
			}
			fmt.Fprintf(&b, " %s: %s |", claim, md(c.Said))
		}
		b.WriteString("\n")
	}
	for _, r := range p.Reports {
		fmt.Fprintf(&b, "\n## Escape targets: %s\n\n%s\n\n%s.\n\n", md(r.Title), md(p.TargetsIntro),
			md(r.Counts))
		b.WriteString("| target | group | threat | verdict | by | witness | layers alone | gap |\n" +
			"|---|---|---|---|---|---|---|---|\n")
		for _, t := range r.Targets {
			verdict := "**" + string(t.Verdict) + "**"
			if t.Expected != "" {
				verdict += " (expected: " + md(t.Expected) + ")"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", code(t.ID), md(t.Group),
				md(t.Threat), verdict, md(orDash(t.By)), md(t.Witness), md(t.Alone), md(orDash(t.Gap)))
		}
	}
	return b.Bytes()
}

// buildText says what the report was made with.
func buildText(b Build) string {
	s := receipt.Build{Version: b.Sabline, Commit: b.Commit, Modified: b.Modified}.String() +
		", " + b.Go + ", " + b.Arch
	if b.Knockout {
		s += ", knock-out"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdSpecial are the characters md escapes: those that make markup in
// CommonMark and GitHub's tables (a backslash escapes each).
const mdSpecial = "\\`*_[]<>|&~#!"

// md is s as Markdown text that makes no markup: on one line, with its
// control characters escaped (codes.TerminalSafe) and each character of
// mdSpecial escaped with a backslash.
func md(s string) string {
	s = codes.TerminalSafe(s)
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(mdSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// code is s as a code span: an ID. One that a code span cannot hold as it
// is (a backtick, a bar) is written as text.
func code(s string) string {
	s = codes.TerminalSafe(s)
	if s == "" || strings.ContainsAny(s, "`|\\") {
		return md(s)
	}
	return "`" + s + "`"
}
