// Package confinecheck proves the ENFORCES table (confine.Enforces) in
// both directions by running the sabline command as a user would: each
// operation a row names is refused by the kernel where the running
// system's cell says the kernel holds it, and goes through, seen from
// outside the worker, where it says it does not, and always under
// --no-confine. Beside it, the command-line behaviours of confinement:
// --confine strict, --require-confinement, what still works under
// confinement, and what receipts, standard error, doctor and audit report.
//
//	go test ./checks/confine/... -v
//
// README.md says what each file checks and how to break a cell on purpose.
package confinecheck

import (
	"encoding/json"
	"fmt"
	"os"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/checks/internal/suite"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestConfine(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "checks/confine", suite.Config(t))
}

// sabline is the normal build of the command, built once for the suite.
var sabline string

// doctorReport is what `sabline doctor --json` prints, as far as the
// suite reads it.
type doctorReport struct {
	Machine confine.Machine `json:"machine"`
	Default core.Result     `json:"default_budget"`
}

// doctor is what `sabline doctor --json` said of this machine before the
// specs ran.
var doctor doctorReport

// i386Entry is whether the kernel offers the i386 entry (int $0x80), as
// a child's one call through it found before the specs ran.
var i386Entry bool

var _ = BeforeSuite(func() {
	var err error
	sabline, err = buildbin.Sabline()
	Expect(err).NotTo(HaveOccurred())
	if id := os.Getenv(flipEnv); id != "" {
		_, ok := confine.EnforcesRow(id)
		Expect(ok).To(BeTrue(), "%s=%s names no row of confine.Enforces()", flipEnv, id)
	}
	r := newScratch().run("doctor", "--json")
	Expect(r.exit).To(Equal(0), "%s", r)
	Expect(json.Unmarshal([]byte(r.stdout), &doctor)).To(Succeed())
	i386Entry, err = escape.I386Entry(sabline)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(buildbin.Cleanup)

// confined reports whether this build confines runs on this machine, as
// the doctor's confined worker found: some layer was applied. Where none
// is, a cell that says the kernel holds an operation cannot be tested.
func confined() bool { return len(doctor.Default.Layers) > 0 }

// noConfinement is the skip reason of a spec that needs confinement on a
// system where this build applies none.
func noConfinement() string {
	return fmt.Sprintf("this build has no confinement on %s: sabline doctor says %s (%s)",
		goruntime.GOOS, doctor.Default.Level, doctor.Default.Reason)
}

var _ = Describe("the ENFORCES table", func() {
	It("has, for every cell of this system, a spec labelled with it (cellLabel) that tests it", func() {
		var missing []string
		for _, row := range confine.Enforces() {
			if _, ok := row.Cell(confine.System(goruntime.GOOS)); ok && !cellsTested[row.ID] {
				missing = append(missing, row.ID)
			}
		}
		Expect(missing).To(BeEmpty(), "rows whose %s cell no spec tests", goruntime.GOOS)
	})
})

// The count line: for each row of the running system, whether every spec
// labelled with it passed (asserted), one was skipped (with why), one
// failed, or none can test it (with why).
var _ = ReportAfterSuite("checks/confine: cells asserted", func(report Report) {
	type tally struct {
		specs, passed int
		failed        bool
		skips         []string
	}
	cells := map[string]*tally{}
	var alone []string
	for _, sr := range report.SpecReports {
		for _, e := range sr.ReportEntries {
			if e.Name == layersAloneEntry {
				alone = append(alone, fmt.Sprintf("%s: %s", sr.LeafNodeText, e.StringRepresentation()))
			}
		}
		for _, l := range sr.Labels() {
			id, ok := strings.CutPrefix(l, cellLabelPrefix)
			if !ok {
				continue
			}
			t := cells[id]
			if t == nil {
				t = &tally{}
				cells[id] = t
			}
			t.specs++
			switch {
			case sr.State.Is(types.SpecStatePassed):
				t.passed++
			case sr.State.Is(types.SpecStateSkipped):
				why := sr.Failure.Message
				if why == "" {
					why = "not run"
				}
				t.skips = append(t.skips, why)
			default:
				t.failed = true
			}
		}
	}
	elsewhere := map[string]map[string]int{} // system, then state
	for _, sr := range report.SpecReports {
		for _, l := range sr.Labels() {
			if sys, ok := strings.CutPrefix(l, elsewhereLabelPrefix); ok {
				if elsewhere[sys] == nil {
					elsewhere[sys] = map[string]int{}
				}
				elsewhere[sys][sr.State.String()]++
			}
		}
	}
	var asserted, partly, failed, skipped, untested []string
	for _, row := range confine.Enforces() {
		if _, ok := row.Cell(confine.System(goruntime.GOOS)); !ok {
			continue
		}
		t := cells[row.ID]
		switch {
		case t == nil:
			untested = append(untested, row.ID)
		case t.failed:
			failed = append(failed, row.ID)
		case t.passed == t.specs:
			asserted = append(asserted, row.ID)
		case t.passed > 0:
			partly = append(partly, fmt.Sprintf("%s: %d of %d specs, skipped: %s", row.ID, t.passed, t.specs,
				strings.Join(dedupe(t.skips), ", ")))
		default:
			skipped = append(skipped, row.ID+": "+strings.Join(dedupe(t.skips), ", "))
		}
	}
	line := fmt.Sprintf("checks/confine: %d %s cells: %d asserted, %d asserted in part, %d skipped, %d failed, %d untested",
		len(asserted)+len(partly)+len(failed)+len(skipped)+len(untested), goruntime.GOOS,
		len(asserted), len(partly), len(skipped), len(failed), len(untested))
	for _, part := range []struct {
		name string
		ids  []string
	}{{"asserted in part", partly}, {"skipped", skipped}, {"failed", failed}, {"untested", untested}} {
		if len(part.ids) > 0 {
			line += "\n  " + part.name + ": " + strings.Join(part.ids, "; ")
		}
	}
	fmt.Println("\n" + line + "\n  asserted: " + strings.Join(asserted, ", "))
	for _, sys := range confine.Systems() {
		if n := elsewhere[string(sys)]; n != nil {
			fmt.Printf("checks/confine: %s cell operations, asserted on %s only (the %s leg of CI): %d skipped here, %d run\n",
				sys.Title(), sys, sys.Title(), n["skipped"], n["passed"]+n["failed"])
		}
	}
	if len(alone) > 0 {
		fmt.Println("checks/confine: the layers that stop each operation alone\n  " + strings.Join(alone, "\n  "))
	}
})

// dedupe drops repeated strings, keeping the first of each.
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Every skipped spec, counted by its reason: a skip says why, and the
// count line says how many there were.
var _ = ReportAfterSuite("checks/confine: skips counted", func(report Report) {
	suite.Print(os.Stdout, "checks/confine", report)
})
