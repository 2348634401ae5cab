package kernelreport

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"

	"golang.org/x/net/html"

	"github.com/sabline/sabline/confine"
)

// hostile is a threat whose text tries markup, a link, a table's bar and
// a terminal's escape.
const hostile = "<img src=x onerror=alert(1)> | **bold** [link](https://example.org) " +
	"\x1b[31mred\n# title"

// darwinReport is a report of macOS: no expectations, one target refused
// by the profile and one that went through, with a hostile threat.
func darwinReport() Report {
	return Report{Schema: Schema, OS: "darwin", Kernel: "24.1.0",
		Build: Build{Sabline: "0.1.0", Knockout: true, Go: "go1.26.8", Arch: "arm64"}, Targets: []Target{
			{ID: "files-read-outside", Group: "files", Threat: "read a file beside the grant",
				Row: "fs-read-dir", Observed: Outcome{StoppedBy: core.LayerSandboxProfile, Errno: "EPERM"},
				Witness: Witness{Kind: WitnessNone}},
			{ID: "net-connect", Group: "network", Threat: hostile, Row: "no-net", Observed: went,
				Witness: Witness{Kind: "listener", Confined: []string{"listener: accepted"},
					Unconfined: []string{"listener: accepted"}}, Gap: "the <b>profile</b> | lets it"},
		}}
}

// sampleReports are the committed reports and darwinReport.
func sampleReports(t *testing.T) []Named {
	return append(committed(t), Named{Report: darwinReport(), Source: "kernel-darwin.json"})
}

// section returns the lines of md from the heading head to the next
// heading of its level.
func section(md, head string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case l == head:
			in = true
		case in && strings.HasPrefix(l, "## "):
			return out
		case in:
			out = append(out, l)
		}
	}
	return out
}

// bars counts the bars of a Markdown table line that are not escaped.
func bars(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' {
			i++
			continue
		}
		if line[i] == '|' {
			n++
		}
	}
	return n
}

func TestMarkdown(t *testing.T) {
	reports := sampleReports(t)
	md := string(Markdown(reports))
	rows := confine.Enforces()
	table := section(md, "## Enforcement table")
	var lines []string
	for _, l := range table {
		if strings.HasPrefix(l, "| `") {
			lines = append(lines, l)
		}
	}
	if len(lines) != len(rows) {
		t.Fatalf("the enforcement table has %d rows, want %d", len(lines), len(rows))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "| `"+rows[i].ID+"` |") || bars(l) != 2+len(confine.Systems())+1 {
			t.Errorf("enforcement row %d: %q", i, l)
		}
	}
	for _, n := range reports {
		head := "## Escape targets: " + n.System().Title()
		var got int
		for _, l := range section(md, head) {
			if strings.HasPrefix(l, "| `") {
				got++
				if bars(l) != 9 {
					t.Errorf("%s: a line of %d columns: %q", head, bars(l)-1, l)
				}
			}
		}
		if got != len(n.Targets) {
			t.Errorf("%s: %d targets, want %d", head, got, len(n.Targets))
		}
	}
	for _, want := range []string{
		"| `no-net` | no net granted | **held** (landlock, seccomp): 10 targets, all stopped as expected |",
		"| `files-stat-outside` | files |",
		// The committed report's kernel: whichever build of the machine
		// last wrote it.
		"| Linux | " + reports[0].Report.Kernel + " | 7 | no | sabline 0.1.0, go1.26.8, amd64, knock-out |",
		"| macOS | 24.1.0 | 0 | - | sabline 0.1.0, go1.26.8, arm64, knock-out |",
		"- Escape targets, macOS: 2 targets: 1 refused, 1 went.",
		"\\<img src=x onerror=alert(1)\\> \\| \\*\\*bold\\*\\* \\[link\\](https://example.org) " +
			"\\\\x1b\\[31mred\\\\n\\# title",
		"the \\<b\\>profile\\</b\\> \\| lets it",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown has no %q", want)
		}
	}
	if !strings.Contains(md, "| `no-net` | no net granted | **held** (landlock, seccomp): "+
		"10 targets, all stopped as expected | **held** (sandbox-profile): 1 of 1 not stopped: "+
		"net-connect |") {
		t.Errorf("the no-net row does not give each system's evidence:\n%s", grep(md, "`no-net`"))
	}
	if strings.ContainsAny(md, "\x1b\r") || regexp.MustCompile(`(^|[^\\])<`).MatchString(md) {
		t.Errorf("a report's text reached the Markdown raw")
	}
	if !strings.Contains(md, "Enforcement cells: ") || !strings.Contains(md, "Their evidence: ") {
		t.Errorf("no summary:\n%s", md[:400])
	}
}

func grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMarkdownWithoutReports: the enforcement table alone, every cell
// without a report.
func TestMarkdownWithoutReports(t *testing.T) {
	md := string(Markdown(nil))
	if !strings.Contains(md, noReportsText) || strings.Contains(md, "## Reports") {
		t.Errorf("no reports, and the Markdown does not say so:\n%s", md)
	}
	cells := len(confine.Enforces()) * len(confine.Systems())
	if got := strings.Count(md, ": "+textNoReport+" |"); got != cells {
		t.Errorf("%d cells say %q, want %d", got, textNoReport, cells)
	}
	if !strings.Contains(md, fmt.Sprintf("%d without a report.", cells)) {
		t.Errorf("the summary does not count the cells without a report:\n%s", md)
	}
}

// TestHTML reads the page as a browser's parser does: one row per
// ENFORCES row and per target, no element, script or resource a
// report's text could add, and every link to a target on the page.
func TestHTML(t *testing.T) {
	reports := sampleReports(t)
	page, err := HTML(reports)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	ids := map[string]bool{}
	var hrefs []string
	var walk func(n *html.Node, table string)
	walk = func(n *html.Node, table string) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "img", "iframe", "object", "embed", "link", "b":
				t.Errorf("the page has a <%s> element", n.Data)
			case "table":
				table = attr(n, "class")
			case "tr":
				if n.Parent != nil && n.Parent.Data == "tbody" {
					counts[table]++
				}
			}
			for _, a := range n.Attr {
				switch {
				case a.Key == "id":
					ids[a.Val] = true
				case a.Key == "href":
					hrefs = append(hrefs, a.Val)
				case a.Key == "src" || strings.HasPrefix(a.Key, "on"):
					t.Errorf("the page has an attribute %s=%q", a.Key, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, table)
		}
	}
	walk(doc, "")
	targets := 0
	for _, r := range reports {
		targets += len(r.Targets)
	}
	if counts["enforces"] != len(confine.Enforces()) || counts["targets"] != targets ||
		counts["reports"] != len(reports) {
		t.Errorf("rows: %v; want %d enforces, %d targets, %d reports", counts,
			len(confine.Enforces()), targets, len(reports))
	}
	for _, h := range hrefs {
		if !strings.HasPrefix(h, "#") || !ids[h[1:]] {
			t.Errorf("a link to %q, which is no target on the page", h)
		}
	}
	if len(hrefs) == 0 {
		t.Errorf("no cell links to the targets not stopped")
	}
	for _, want := range []string{"Content-Security-Policy", "default-src 'none'",
		"&lt;img src=x onerror=alert(1)&gt;", "the &lt;b&gt;profile&lt;/b&gt; | lets it"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the page has no %q", want)
		}
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestHTMLStylesWhatItShows: a cell that claims its system holds the row
// is styled as held only where the report shows it (every target of the
// row stopped): the no-net row's Linux cell, 10 targets all stopped, is
// "yes"; its macOS cell, whose one target went, and its Windows cell,
// with no report, are "yes unshown". The summary counts the claims shown
// apart.
func TestHTMLStylesWhatItShows(t *testing.T) {
	page, err := HTML(sampleReports(t))
	if err != nil {
		t.Fatal(err)
	}
	row := string(page)
	i := strings.Index(row, ">no-net<")
	if i < 0 {
		t.Fatal("no no-net row on the page")
	}
	row = row[i:]
	row = row[:strings.Index(row, "</tr>")]
	got := regexp.MustCompile(`<td class="([^"]*)">`).FindAllStringSubmatch(row, -1)
	var classes []string
	for _, m := range got {
		classes = append(classes, m[1])
	}
	want := []string{"yes", "yes unshown", "yes unshown"}
	if !slices.Equal(classes, want) {
		t.Errorf("the no-net row's cells are styled %q, want %q", classes, want)
	}
	// The summary's counts are the page's cells: every claim of held,
	// and those of them styled as shown.
	shown := strings.Count(string(page), `<td class="yes">`)
	unshown := strings.Count(string(page), `<td class="yes unshown">`)
	if shown == 0 || unshown == 0 {
		t.Fatalf("%d cells held and shown, %d unshown: the sample tells nothing", shown, unshown)
	}
	said := fmt.Sprintf("Enforcement cells: %d held (%d of them shown here", shown+unshown, shown)
	if !strings.Contains(string(page), said) {
		t.Errorf("the summary does not say %q", said)
	}
}

// TestSummaryCountsCellsByEvidence: the summary counts each enforcement
// cell by what its system's report shows of it: a row with a target not
// stopped is counted with targets not stopped, never with every target
// stopped, and likewise a row with one unknown, or one that could not be
// made. The control: a row whose targets all stopped is counted so.
func TestSummaryCountsCellsByEvidence(t *testing.T) {
	unknown := Outcome{StoppedBy: ByUnknown}
	r := linux(
		tgt("a", "no-fs", eacces, eacces), tgt("b", "no-fs", eacces, went),
		tgt("c", "no-net", eperm, eperm),
		tgt("d", "deny-list", eperm, unknown),
		tgt("e", "fs-any", eacces, notMade),
	)
	rows, systems := len(confine.Enforces()), len(confine.Systems())
	want := fmt.Sprintf("Their evidence: 1 %s, 1 %s, 1 %s, 1 %s, %d %s, %d %s.", kindStopped,
		kindMissed, kindUnknown, kindNotMade, rows-4, kindUntested, rows*(systems-1), kindNoReport)
	if got := newPage([]Named{{Report: r}}).Summary[1]; got != want {
		t.Errorf("the summary says\n%s\nwant\n%s", got, want)
	}
}
