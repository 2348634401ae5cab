package kernelreport

import (
	"bytes"
	"html/template"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// asTemplate renders the page with html/template, from the template the
// page was first written in: the tests hold HTML to it, byte for byte
// (the sabline binary does not link html/template: see HTML).
func asTemplate(reports []Named) ([]byte, error) {
	var b bytes.Buffer
	t := template.Must(template.New("page").Parse(pageTemplate))
	if err := t.Execute(&b, newPage(reports)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// TestHTMLAsTheTemplate: the page HTML writes is the template's, byte for
// byte, escaping included, for the sample reports and for text of every
// kind a report could carry (markup, quotes, NUL, bytes that are not
// UTF-8) in every field the page shows.
func TestHTMLAsTheTemplate(t *testing.T) {
	reports := sampleReports(t)
	const odd = "<b onclick='x'>\"a\"+&amp;\x00\xff\u2028</b> "
	r := &reports[0]
	r.Source, r.Kernel, r.Build.Sabline = odd, odd, odd
	tg := &r.Targets[0]
	tg.ID, tg.Group, tg.Threat, tg.Note, tg.Gap = odd+"id", odd, odd, odd, odd
	sameAsTemplate(t, reports)
	sameAsTemplate(t, sampleReports(t))
	sameAsTemplate(t, nil)
}

func sameAsTemplate(t *testing.T, reports []Named) {
	t.Helper()
	got, err := HTML(reports)
	if err != nil {
		t.Fatal(err)
	}
	want, err := asTemplate(reports)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		t.Fatalf("HTML differs from the template at byte %d:\ngot  %q\nwant %q", i,
			got[i:min(len(got), i+120)], want[i:min(len(want), i+120)])
	}
}

// pageTemplate is the page as an html/template template. Classes: a
// claim's cell by its confine.Holds (yes, partly, no), a verdict by its
// words.
const pageTemplate = pageHead + `{{.Title}}` + pageStyle + `<h1>{{.Title}}</h1>
<p class="intro">{{.Intro}}</p>
<ul class="summary">
{{- range .Summary}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- if .Reports}}
<h2>Reports</h2>
<table class="reports">
<thead><tr><th>system</th><th>kernel</th><th>Landlock ABI</th><th>i386 entry</th><th>build</th>
<th>schema</th><th>file</th></tr></thead>
<tbody>
{{- range .Reports}}
<tr><td>{{.Title}}</td><td>{{.Kernel}}</td><td>{{.LandlockABI}}</td><td>{{or .I386 "-"}}</td>
<td>sabline {{.Build.Sabline}}, {{.Build.Go}}, {{.Build.Arch}}
{{- if .Build.Knockout}}, knock-out{{end}}</td>
<td><code>{{.Schema}}</code></td><td>{{or .Source "-"}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
<h2>Enforcement table</h2>
<p class="intro">{{.EnforcesIntro}}</p>
<table class="enforces">
<thead><tr><th>row</th><th>item</th>{{range .Systems}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr><td class="id"><code>{{.ID}}</code></td><td>{{.Item}}</td>
{{- range .Cells}}
<td class="{{.Holds}}"><span class="claim">{{.Claim}}</span>
{{- if .Layers}} <span class="layers">({{.Layers}})</span>{{end}}
<span class="evidence{{if .Missed}} missed{{end}}">
{{- if .Missed}}{{len .Missed}} of {{len .Evidence.Targets}} not stopped:
{{range $i, $l := .Missed}}{{if $i}}, {{end}}
{{- if $l.Anchor}}<a href="#{{$l.Anchor}}">{{$l.ID}}</a>{{else}}{{$l.ID}}{{end}}{{end}}
{{if .Rest}}<br><small>{{.Rest}}</small>{{end}}{{else}}{{.Said}}{{end}}</span>
<details><summary>the claim</summary>{{.Text}}</details></td>
{{- end}}
</tr>
{{- end}}
</tbody>
</table>
{{- range .Reports}}
<h2>Escape targets: {{.Title}}</h2>
<p class="intro">{{$.TargetsIntro}}</p>
<p>{{.Counts}}.</p>
<table class="targets">
<thead><tr><th>target</th><th>group</th><th>threat</th><th>verdict</th><th>by</th><th>witness</th>
<th>layers alone</th><th>gap</th></tr></thead>
<tbody>
{{- range .Targets}}
<tr id="{{.Anchor}}"><td class="id"><code>{{.ID}}</code></td><td>{{.Group}}</td>
<td class="threat">{{.Threat}}
{{- if .Note}}<details><summary>note</summary>{{.Note}}</details>{{end}}</td>
<td class="verdict {{.Class}}">{{.Verdict}}
{{- if .Expected}}<span class="expected">expected: {{.Expected}}</span>{{end}}</td>
<td class="by">{{or .By "-"}}</td><td class="witness">{{.Witness}}</td><td>{{.Alone}}</td>
<td class="gap">{{or .Gap "-"}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
</body>
</html>
`

// TestSablineLinksNoTemplates: the sabline command links no text/template
// (see HTML); the control: the list finds it in this package's tests,
// which render the template.
func TestSablineLinksNoTemplates(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages with:", err)
	}
	links := func(args ...string) bool {
		out, err := exec.Command("go", append([]string{"list", "-deps"}, args...)...).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", args, err)
		}
		return slices.Contains(strings.Fields(string(out)), "text/template")
	}
	if links("github.com/sabline/sabline/cmd/sabline") {
		t.Error("the sabline command links text/template: every exported method of every type " +
			"it converts to an interface is kept, and every start of it is slower")
	}
	if !links("-test", "github.com/sabline/sabline/kernelreport") {
		t.Error("this package's tests link no text/template: the list does not find it where it is")
	}
}
