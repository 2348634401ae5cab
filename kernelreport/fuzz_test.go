package kernelreport

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
)

// fuzzSeedTargets is how many targets of each report the fuzzer is
// given as a seed.
const fuzzSeedTargets = 4

// FuzzParse: whatever the bytes, Parse returns a report or an error and
// never panics; a report it returns is within its bounds, and is written
// again as a report Parse reads to the same bytes. The seeds are the
// committed reports, the report of schema /2, and malformed ones.
//
//	go test ./kernelreport -run '^$' -fuzz '^FuzzParse$' -fuzztime 1m
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		if len(r.Targets) > MaxTargets {
			t.Fatalf("%d targets", len(r.Targets))
		}
		seen := map[string]bool{}
		for _, tg := range r.Targets {
			if tg.ID == "" || seen[tg.ID] {
				t.Fatalf("target %q: empty or twice", tg.ID)
			}
			if tg.Row != "" && !r.recordsRows() {
				t.Fatalf("a report of %s names a row", r.Schema)
			}
			seen[tg.ID] = true
		}
		again, err := Parse(r.JSON())
		if err != nil {
			t.Fatalf("the report written again does not read: %v", err)
		}
		if !bytes.Equal(again.JSON(), r.JSON()) {
			t.Fatalf("the report written again reads as another")
		}
	})
}

// FuzzRender: every report Parse returns renders as Markdown and HTML,
// HTML as the template would (asTemplate), and does not differ from
// itself. Each input costs the whole
// enforcement table, so this one is slower than FuzzParse.
//
//	go test ./kernelreport -run '^$' -fuzz '^FuzzRender$' -fuzztime 1m
func FuzzRender(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		named := []Named{{Report: r, Source: "fuzz.json"}}
		Markdown(named)
		page, err := HTML(named)
		if err != nil {
			t.Fatal(err)
		}
		if want, err := asTemplate(named); err != nil || !bytes.Equal(page, want) {
			t.Fatalf("HTML is not the template's page (%v)", err)
		}
		c, err := Diff(named[0], named[0])
		if err != nil || c.regressed() || len(c.Targets)+len(c.Cells) != 0 {
			t.Fatalf("a report differs from itself: %v\n%s", err, c.Text())
		}
	})
}

// addSeeds gives f the committed reports, the report of schema /2 and
// malformed ones. Fuzzing mutates small inputs far faster than reports
// of 200 KB: the fuzzer is given each report's header and first
// targets, and the test without -fuzz each report whole.
func addSeeds(f *testing.F) {
	for _, seed := range seedData(f, fuzzSeedTargets) {
		f.Add(seed)
	}
}

// seedData is the seeds addSeeds gives, with at most most targets of
// each report when fuzzing.
func seedData(f *testing.F, most int) [][]byte {
	var out [][]byte
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	seeds := committed(f)
	old, err := Read(schema2Path)
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, Named{Report: old, Source: schema2Path})
	for _, n := range seeds {
		data, err := os.ReadFile(n.Source)
		if err != nil {
			f.Fatal(err)
		}
		if fuzzing {
			n.Targets = n.Targets[:min(len(n.Targets), most)]
			data = n.JSON()
		}
		out = append(out, data)
	}
	for _, seed := range malformedSeeds {
		out = append(out, []byte(seed))
	}
	return out
}

// FuzzDiff: whatever two reports Parse reads (`sabline report diff OLD
// NEW`, each a file a CI job or a hand could have written), Diff
// compares them or refuses two systems with E301, never panics; its
// text is one line a change, each text escaped, and the lines marked
// REGRESSED are the regressions it counts (which set the exit status).
//
//	go test ./kernelreport -run '^$' -fuzz '^FuzzDiff$' -fuzztime 1m
func FuzzDiff(f *testing.F) {
	// One target of each report when fuzzing: an input is two reports,
	// and the fuzzer minimizes what it finds for up to a minute a time.
	seeds := seedData(f, 1)
	for i, a := range seeds {
		f.Add(a, seeds[(i+1)%len(seeds)])
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, err := Parse(a)
		if err != nil {
			return
		}
		new, err := Parse(b)
		if err != nil {
			return
		}
		c, err := Diff(Named{Report: old, Source: "old.json"},
			Named{Report: new, Source: "new.json"})
		if err != nil {
			if old.OS == new.OS || codes.CodeOf(err) != codes.E301 {
				t.Fatalf("Diff of %s and %s: %v", old.OS, new.OS, err)
			}
			return
		}
		lines := strings.Split(strings.TrimSuffix(string(c.Text()), "\n"), "\n")
		want := 2 + len(c.Machine) + 1
		if len(c.Targets)+len(c.Cells) > 0 {
			want = 2 + len(c.Machine) + 3 + len(c.Targets) + len(c.Cells)
		}
		marked := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "  "+string(Regressed)+" ") {
				marked++
			}
		}
		targets, cells := c.Regressions()
		switch {
		case len(lines) != want:
			t.Fatalf("%d lines, want %d:\n%s", len(lines), want, c.Text())
		case marked != targets+cells:
			t.Fatalf("%d lines marked regressed, %d regressions counted:\n%s", marked,
				targets+cells, c.Text())
		}
	})
}

// malformedSeeds are reports a little or far from right.
var malformedSeeds = []string{
	"",
	"null",
	"[]",
	`{"schema":"sabline.kernel-report/4"}`,
	`{"schema":"sabline.kernel-report/4","os":"linux","targets":null}`,
	`{"schema":"sabline.kernel-report/4","os":"linux","targets":[{"id":""}]}`,
	`{"schema":"sabline.kernel-report/4","os":"linux","targets":[{"id":"a"},{"id":"a"}]}`,
	`{"schema":"sabline.kernel-report/3","os":"windows","targets":[{"id":"a","row":"no-fs",` +
		`"observed":{"stopped_by":"job-object","errno":"E"},"layers_alone":{}}]}`,
	`{"schema":"sabline.kernel-report/4","os":"darwin","targets":[{"id":"<b>|x","threat":"\u001b[31m",` +
		`"row":"no-net","observed":{"stopped_by":"language"},"witness":{"kind":"victim",` +
		`"confined":["victim: alive"],"unconfined":null}}]}`,
	`{"schema":"sabline.kernel-report/4","os":"linux","targets":[` + "\xff" + `]}`,
	`{"schema":"sabline.kernel-report/2","os":"linux","targets":[]} trailing`,
}
