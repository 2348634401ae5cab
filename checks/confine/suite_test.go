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
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/buildbin"
)

func TestConfine(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "checks/confine")
}

// sabline is the normal build of the command, built once for the suite.
var sabline string

// doctorReport is what `sabline doctor --json` prints, as far as the
// suite reads it.
type doctorReport struct {
	Machine confine.Machine `json:"machine"`
	Default confine.Result  `json:"default_budget"`
}

// doctor is what `sabline doctor --json` said of this machine before the
// specs ran.
var doctor doctorReport

var _ = BeforeSuite(func() {
	var err error
	sabline, err = buildbin.Sabline()
	Expect(err).NotTo(HaveOccurred())
	if id := os.Getenv(flipEnv); id != "" {
		_, ok := confine.EnforcesRow(id)
		Expect(ok).To(BeTrue(), "%s=%s names no row of confine.Enforces", flipEnv, id)
	}
	r := newScratch().run("doctor", "--json")
	Expect(r.exit).To(Equal(0), "%s", r)
	Expect(json.Unmarshal([]byte(r.stdout), &doctor)).To(Succeed())
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

// The count line: how many cells of the running system the honesty
// entries asserted in both directions, and why the others were skipped.
var _ = ReportAfterSuite("checks/confine: cells asserted", func(report Report) {
	type tally struct {
		specs, passed int
		failed        bool
		skips         []string
	}
	cells := map[string]*tally{}
	for _, sr := range report.SpecReports {
		id, ok := honestyRow[sr.LeafNodeText]
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
			why, _, _ := strings.Cut(sr.Failure.Message, ": ")
			if why == "" {
				why = "not run"
			}
			t.skips = append(t.skips, why)
		default:
			t.failed = true
		}
	}
	ids := make([]string, 0, len(cells))
	for id := range cells {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var asserted, failed int
	var skipped []string
	for _, id := range ids {
		switch t := cells[id]; {
		case t.failed:
			failed++
		case t.passed == t.specs:
			asserted++
		default:
			skipped = append(skipped, id+" on "+goruntime.GOOS+": "+strings.Join(dedupe(t.skips), ", "))
		}
	}
	line := fmt.Sprintf("checks/confine: %d cells asserted in both directions, %d skipped", asserted, len(skipped))
	if len(skipped) > 0 {
		line += " (" + strings.Join(skipped, "; ") + ")"
	}
	if failed > 0 {
		line += fmt.Sprintf(", %d failed", failed)
	}
	fmt.Println("\n" + line)
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
