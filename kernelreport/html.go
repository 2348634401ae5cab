package kernelreport

import (
	"strconv"
	"strings"
)

// HTML renders the reports as one self-contained HTML page: what
// Markdown shows, with each cell's claim in full, styled by inline CSS.
// The page loads nothing and runs no script (its Content-Security-Policy
// allows neither); every text of a report is escaped (esc) as
// html/template would escape it, which the tests hold it to. It is
// written without html/template: a binary that links text/template keeps
// every exported method of every type it converts to an interface (the
// templates call methods by name), which made sabline 4 MB larger and
// every start of it, each worker's among them, slower.
func HTML(reports []Named) ([]byte, error) {
	p := newPage(reports)
	var b strings.Builder
	w := func(parts ...string) {
		for _, s := range parts {
			b.WriteString(s)
		}
	}
	w(pageHead, esc(p.Title), pageStyle, "<h1>", esc(p.Title), "</h1>\n<p class=\"intro\">",
		esc(p.Intro), "</p>\n<ul class=\"summary\">")
	for _, s := range p.Summary {
		w("\n<li>", esc(s), "</li>")
	}
	w("\n</ul>")
	if len(p.Reports) > 0 {
		w(reportsHead)
		for _, r := range p.Reports {
			w("\n<tr><td>", esc(r.Title), "</td><td>", esc(r.Kernel), "</td><td>",
				strconv.Itoa(r.LandlockABI), "</td><td>", esc(orDash(r.I386)), "</td>\n<td>",
				esc(buildText(r.Build)))
			w("</td>\n<td><code>", esc(r.Schema), "</code></td><td>", esc(orDash(r.Source)),
				"</td></tr>")
		}
		w("\n</tbody>\n</table>")
	}
	w("\n<h2>Enforcement table</h2>\n<p class=\"intro\">", esc(p.EnforcesIntro),
		"</p>\n<table class=\"enforces\">\n<thead><tr><th>row</th><th>item</th>")
	for _, s := range p.Systems {
		w("<th>", esc(s), "</th>")
	}
	w("</tr></thead>\n<tbody>")
	for _, r := range p.Rows {
		w("\n<tr><td class=\"id\"><code>", esc(r.ID), "</code></td><td>", esc(r.Item), "</td>")
		for _, c := range r.Cells {
			writeCell(w, c)
		}
		w("\n</tr>")
	}
	w("\n</tbody>\n</table>")
	for _, r := range p.Reports {
		w("\n<h2>Escape targets: ", esc(r.Title), "</h2>\n<p class=\"intro\">", esc(p.TargetsIntro),
			"</p>\n<p>", esc(r.Counts), ".</p>", targetsHead)
		for _, t := range r.Targets {
			w("\n<tr id=\"", esc(t.Anchor), "\"><td class=\"id\"><code>", esc(t.ID), "</code></td><td>",
				esc(t.Group), "</td>\n<td class=\"threat\">", esc(t.Threat))
			if t.Note != "" {
				w("<details><summary>note</summary>", esc(t.Note), "</details>")
			}
			w("</td>\n<td class=\"verdict ", esc(t.Class), "\">", esc(string(t.Verdict)))
			if t.Expected != "" {
				w("<span class=\"expected\">expected: ", esc(t.Expected), "</span>")
			}
			w("</td>\n<td class=\"by\">", esc(orDash(t.By)), "</td><td class=\"witness\">",
				esc(t.Witness), "</td><td>", esc(t.Alone), "</td>\n<td class=\"gap\">", esc(orDash(t.Gap)),
				"</td></tr>")
		}
		w("\n</tbody>\n</table>")
	}
	w("\n</body>\n</html>\n")
	return []byte(b.String()), nil
}

// writeCell writes one cell of the enforcement table: the claim, its
// layers, the evidence (the targets not stopped, linked to their rows),
// and the claim's text.
func writeCell(w func(...string), c cellView) {
	w("\n<td class=\"", esc(c.Holds), "\"><span class=\"claim\">", esc(c.Claim), "</span>")
	if c.Layers != "" {
		w(" <span class=\"layers\">(", esc(c.Layers), ")</span>")
	}
	if len(c.Missed) == 0 {
		w("\n<span class=\"evidence\">", esc(c.Said))
	} else {
		w("\n<span class=\"evidence missed\">", strconv.Itoa(len(c.Missed)), " of ",
			strconv.Itoa(len(c.Evidence.Targets)), " not stopped:\n")
		for i, l := range c.Missed {
			if i > 0 {
				w(", ")
			}
			if l.Anchor != "" {
				w("<a href=\"#", esc(l.Anchor), "\">", esc(l.ID), "</a>")
			} else {
				w(esc(l.ID))
			}
		}
		w("\n")
		if c.Rest != "" {
			w("<br><small>", esc(c.Rest), "</small>")
		}
	}
	w("</span>\n<details><summary>the claim</summary>", esc(c.Text), "</details></td>")
}

// escaper escapes text as html/template escapes text and quoted
// attribute values.
var escaper = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;",
	"+", "&#43;", "<", "&lt;", ">", "&gt;")

// esc is s escaped for the page's text and its quoted attribute values.
func esc(s string) string { return escaper.Replace(s) }

// The page's fixed parts.
const (
	pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`
	pageStyle = `</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em; color: #1f2328;
  background: #fff; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
p.intro { max-width: 60em; color: #57606a; }
ul.summary { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: .8em 2em; }
table { border-collapse: collapse; width: 100%; margin: .6em 0; }
th, td { border: 1px solid #d0d7de; padding: .35em .5em; vertical-align: top; text-align: left; }
th { background: #f6f8fa; position: sticky; top: 0; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
td.id { white-space: nowrap; }
.claim { font-weight: 600; }
td.yes .claim { color: #1a7f37; }
td.yes.unshown .claim { color: #6e7781; }
td.partly .claim { color: #9a6700; }
td.no .claim { color: #6e7781; }
.layers { color: #57606a; }
.evidence { display: block; margin-top: .3em; }
.evidence.missed { color: #cf222e; }
.evidence.missed small { color: #57606a; }
details summary { cursor: pointer; color: #57606a; }
.verdict { font-weight: 600; white-space: nowrap; }
.v-refused { color: #1a7f37; }
.v-went, .v-killed, .v-unknown { color: #cf222e; }
.v-not-refused, .v-unavailable { color: #9a6700; }
.expected { display: block; font-weight: normal; color: #cf222e; }
.witness, .gap { font-size: 12px; }
table.targets td.threat { min-width: 18em; }
table.targets td.witness { min-width: 16em; }
table.targets td.gap { min-width: 14em; }
table.targets td.by { white-space: nowrap; }
</style>
</head>
<body>
`
	reportsHead = `
<h2>Reports</h2>
<table class="reports">
<thead><tr><th>system</th><th>kernel</th><th>Landlock ABI</th><th>i386 entry</th><th>build</th>
<th>schema</th><th>file</th></tr></thead>
<tbody>`
	targetsHead = `
<table class="targets">
<thead><tr><th>target</th><th>group</th><th>threat</th><th>verdict</th><th>by</th><th>witness</th>
<th>layers alone</th><th>gap</th></tr></thead>
<tbody>`
)
