package confinecheck

import (
	"fmt"
	"os"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/receipt"
)

// flipEnv names a variable for breaking the suite on purpose: with
// SABLINE_CHECKS_FLIP=ROW-ID the suite inverts, in its own copy of the
// table, the running system's cell of that row (yes becomes no, no
// becomes yes), and the entries of that row must then fail, naming it.
const flipEnv = "SABLINE_CHECKS_FLIP"

// partlyNotAsserted says, for a system and a row whose cell there holds
// partly and whose PartlyOps names nothing for it, why the row's
// operations cannot be asserted there either way. Any other such cell is
// a failure, not a skip: a cell downgraded to partly must not pass
// unnoticed.
var partlyNotAsserted = map[string]string{
	string(confine.Darwin) + " no-fs": "the profile holds writes, but reads only under the home directory and /Volumes; " +
		"PartlyOps could name the write once a macOS leg has shown it refused",
	string(confine.Darwin) + " fs-read-dir": "the profile refuses reads only under the home directory and /Volumes, " +
		"and the hook's read is of a scratch directory elsewhere",
	string(confine.Darwin) + " deny-list": "the profile does not refuse a signal to another process of the same user, " +
		"which is the process the hook signals",
	string(confine.Windows) + " deny-list": "no Windows layer refuses the hook's signal of its own accord: the job " +
		"object and the token hold other things",
}

// honestyCase is one operation of one row, with a system's cell as the
// suite expects it.
type honestyCase struct {
	sys  confine.System
	row  confine.Row
	op   string
	cell confine.Cell
}

// elsewhereLabelPrefix labels the entries of another system's cell: they
// are skipped here, each with its reason, and counted by the count line.
const elsewhereLabelPrefix = "elsewhere:"

// elsewhere is the skip reason of an entry for sys's cell on another
// system: each system's cells are asserted by the suite on that system,
// here or on its leg of CI.
func elsewhere(sys confine.System, rowID string) string {
	return fmt.Sprintf("the %s cell of %s is asserted on %s only (the %s leg of CI); this is %s",
		sys.Title(), rowID, sys, sys.Title(), goruntime.GOOS)
}

// honestyEntries makes one entry for each operation of each row of
// confine.Enforces that names operations, for every system of
// confine.Systems: the running system's are asserted, the others' skipped
// with the reason and counted.
func honestyEntries() []TableEntry {
	flip := os.Getenv(flipEnv)
	var entries []TableEntry
	for _, sys := range confine.Systems() {
		for _, row := range confine.Enforces() {
			cell, ok := row.Cell(sys)
			if !ok {
				continue
			}
			note := ""
			cell.Holds = row.OpsHold(sys)
			here := string(sys) == goruntime.GOOS
			if here && row.ID == flip {
				cell.Holds = map[confine.Holds]confine.Holds{
					confine.HoldsYes: confine.HoldsNo, confine.HoldsNo: confine.HoldsYes, confine.HoldsPartly: confine.HoldsPartly,
				}[cell.Holds]
				note = " (inverted by " + flipEnv + ")"
			}
			for _, op := range row.Ops {
				desc := fmt.Sprintf("%s %s on %s: holds %s%s", row.ID, op, sys, cell.Holds, note)
				label := Label(elsewhereLabelPrefix + string(sys))
				if here {
					label = cellLabel(row.ID)
				}
				entries = append(entries, Entry(desc, label, honestyCase{sys: sys, row: row, op: op, cell: cell}))
			}
		}
	}
	return entries
}

var _ = DescribeTable("ENFORCES, proved in both directions by the fault-injection hook",
	func(c honestyCase) {
		if string(c.sys) != goruntime.GOOS {
			Skip(elsewhere(c.sys, c.row.ID))
		}
		s := newScratch()
		allow := strings.ReplaceAll(c.row.Budget, confine.PlaceholderGrant, s.grant)
		prog := s.file("prog.vel", "x = 1\n")
		attempt := func(w witness, flags ...string) (ran, *receipt.Receipt) {
			args := append(flags, "--allow", allow, prog)
			r := s.runWith(call{args: args, fault: c.op + "=" + w.target})
			return r, s.receipt()
		}

		By("--no-confine: the operation goes through, and is seen from outside the worker")
		w := s.witness(c.op)
		r, rec := attempt(w, "--no-confine")
		expectWentThrough("under --no-confine", c.op, w, r, rec)

		switch c.cell.Holds {
		case confine.HoldsPartly:
			why, ok := partlyNotAsserted[goruntime.GOOS+" "+c.row.ID]
			if !ok {
				Fail(fmt.Sprintf("the %s cell of %s holds partly, its PartlyOps says nothing of what the %s meets here, "+
					"and partlyNotAsserted gives no reason: say which part the operation tests, or why it tests none", goruntime.GOOS, c.row.ID, c.op))
			}
			Skip("cell holds partly: " + why)
		case confine.HoldsYes, confine.HoldsNo:
			// A no is a claim about a confined run too: where nothing is
			// applied, the operation goes through whatever the cell says.
			if !confined() {
				Skip(noConfinement())
			}
		default:
			Fail(fmt.Sprintf("the cell holds %q, which is none of yes, partly and no", c.cell.Holds))
		}
		if abi := confine.Probe().LandlockABI; c.cell.Holds == confine.HoldsYes && c.sys == confine.Linux && abi < c.row.OpsLandlockABI {
			Skip(fmt.Sprintf("the %s of row %s is held from Landlock ABI %d; this kernel offers %d", c.op, c.row.ID, c.row.OpsLandlockABI, abi))
		}

		w = s.witness(c.op)
		r, rec = attempt(w)
		if c.cell.Holds == confine.HoldsNo {
			By("confined, where the cell holds no: the operation goes through, and is seen from outside the worker")
			expectWentThrough("confined, where the cell holds no", c.op, w, r, rec)
			return
		}
		By("confined, where the cell holds yes: nothing is made, and E319 names the cell's layers")
		expectRefused(c, w, r, rec)
	},
	honestyEntries(),
)

// expectWentThrough: the operation was seen from outside, the run ended
// well, and its receipt says the operation went through. how says under
// what the run was made, for the failure message.
func expectWentThrough(how, op string, w witness, r ran, rec *receipt.Receipt) {
	GinkgoHelper()
	Expect(w.happened()).To(BeTrue(), "%s, the %s of %s was not seen from outside the worker\n%s", how, op, w.target, r)
	Expect(r.exit).To(Equal(0), "%s", r)
	Expect(rec.Faults).To(ConsistOf(And(
		HaveField("Op", op), HaveField("Target", w.target), HaveField("Result", receipt.FaultWent))))
}

// expectRefused: nothing was seen from outside; the run ended with E319
// naming, on standard error and in its receipt, layers of the cell, and
// every layer the cell relies on was applied.
func expectRefused(c honestyCase, w witness, r ran, rec *receipt.Receipt) {
	GinkgoHelper()
	Expect(w.happened()).To(BeFalse(),
		"the cell says the kernel holds this, yet the %s of %s was seen from outside the worker\n%s", c.op, w.target, r)
	Expect(r.exit).To(Equal(1), "%s", r)
	Expect(rec.Outcome.Code).To(Equal(codes.E319), "%s", r)
	Expect(rec.Faults).To(ConsistOf(And(
		HaveField("Op", c.op), HaveField("Target", w.target), HaveField("Result", receipt.FaultRefused))))
	refusedBy := rec.Faults[0].Layers
	Expect(refusedBy).NotTo(BeEmpty(), "the refusal names no layer")
	for _, l := range c.cell.Layers {
		Expect(rec.RunParameters.ConfinementLayers).To(ContainElement(MatchRegexp(layerPattern(l).String())),
			"the cell relies on %s, which the run did not apply", l)
	}
	line := r.stderrLine("sabline: E319: ")
	Expect(line).To(ContainSubstring(c.op+" "+w.target), "%s", r)
	Expect(expectNamedLayers(line, c.cell)).To(Equal(refusedBy), "%s", r)
}

// layersAlone are the values of linux.LayersOnlyEnv, each making a
// knock-out build apply one Linux layer alone, with the name the ENFORCES
// table gives that layer.
var layersAlone = []struct{ only, layer string }{
	{"landlock", core.LayerLandlockFamily},
	{"seccomp", core.LayerSeccomp},
	{"capabilities", core.LayerCapabilities},
}

// layersAloneEntry is the report entry in which each spec below records
// the layers that stopped its operation alone.
const layersAloneEntry = "layers alone"

// layerAloneEntries makes one entry for each operation of each row whose
// Linux cell says the kernel holds it.
func layerAloneEntries() []TableEntry {
	var entries []TableEntry
	if goruntime.GOOS != string(confine.Linux) {
		return nil
	}
	for _, row := range confine.Enforces() {
		if row.OpsHold(confine.Linux) != confine.HoldsYes {
			continue
		}
		for _, op := range row.Ops {
			entries = append(entries, Entry(row.ID+" "+op, cellLabel(row.ID),
				honestyCase{sys: confine.Linux, row: row, op: op, cell: row.Cells[confine.Linux]}))
		}
	}
	return entries
}

var _ = DescribeTable("ENFORCES, each Linux layer alone (knock-out build with "+linux.LayersOnlyEnv+")",
	func(c honestyCase) {
		if !confined() {
			Skip(noConfinement())
		}
		if abi := confine.Probe().LandlockABI; abi < c.row.OpsLandlockABI {
			Skip(fmt.Sprintf("the %s of row %s is held from Landlock ABI %d; this kernel offers %d", c.op, c.row.ID, c.row.OpsLandlockABI, abi))
		}
		s := newScratch()
		allow := strings.ReplaceAll(c.row.Budget, confine.PlaceholderGrant, s.grant)
		prog := s.file("prog.vel", "x = 1\n")
		var stoppers []string
		for _, l := range layersAlone {
			w := s.witness(c.op)
			r := s.runWith(call{bin: knockout(), args: []string{"--allow", allow, prog}, fault: c.op + "=" + w.target,
				env: []string{linux.LayersOnlyEnv + "=" + l.only}})
			rec := s.receipt()
			Expect(rec.RunParameters.ConfinementLayers).To(ConsistOf(MatchRegexp(layerPattern(l.layer).String())),
				"%s=%s did not leave the worker %s alone\n%s", linux.LayersOnlyEnv, l.only, l.layer, r)
			if w.happened() {
				Expect(r.exit).To(Equal(0), "%s", r)
				Expect(rec.Faults).To(ConsistOf(HaveField("Result", receipt.FaultWent)), "%s", r)
				continue
			}
			stoppers = append(stoppers, l.layer)
			Expect(rec.Outcome.Code).To(Equal(codes.E319), "%s", r)
			named, _ := namedLayers(rec.Outcome.Message)
			Expect(named).To(ConsistOf(MatchRegexp(layerPattern(l.layer).String())),
				"with %s alone applied, the refusal must name it and nothing else\n%s", l.layer, r)
		}
		AddReportEntry(layersAloneEntry, strings.Join(stoppers, ", "))
		Expect(stoppers).NotTo(BeEmpty(), "the cell says the kernel holds the %s, and no layer alone stops it", c.op)
		for _, l := range stoppers {
			Expect(c.cell.Layers).To(ContainElement(l), "%s alone stops the %s, and the cell does not name it", l, c.op)
		}
		// The other direction: each layer the cell relies on stops the
		// operation alone, or the cell names a layer that holds nothing of
		// it (a Landlock rule or scope dropped while seccomp still refuses
		// the call would pass unnoticed otherwise). Landlock is excused on
		// a kernel below the ABI that holds this operation.
		abi := confine.Probe().LandlockABI
		for _, l := range c.cell.Layers {
			if l == core.LayerLandlockFamily && abi < landlockAloneFrom(c.op) {
				continue
			}
			Expect(stoppers).To(ContainElement(l), "the cell relies on %s, which alone does not stop the %s (stopped alone by: %v)",
				l, c.op, stoppers)
		}
	},
	layerAloneEntries(),
)

// landlockAloneFrom is the Landlock ABI from which Landlock alone stops
// the operation op: TCP from LandlockABITCP, signals from the ABI of
// scopes, files and execution from the first.
func landlockAloneFrom(op string) int {
	switch op {
	case confine.OpConnect:
		return linux.LandlockABITCP
	case confine.OpSignal:
		return linux.LandlockABIScopes()
	}
	return 1
}

var _ = Describe(linux.LayersOnlyEnv, func() {
	DescribeTable("leaves every layer on where it is not a knock-out build's switch of one layer",
		func(knockedOut bool, value string, wantReason string) {
			if goruntime.GOOS != string(confine.Linux) {
				Skip("the switch names Linux layers")
			}
			if !confined() {
				Skip(noConfinement())
			}
			s := newScratch()
			c := call{args: []string{"--allow", "io", s.file("prog.vel", hello)}, env: []string{linux.LayersOnlyEnv + "=" + value}}
			if knockedOut {
				c.bin = knockout()
			}
			r := s.runWith(c)
			Expect(r.exit).To(Equal(0), "%s", r)
			rec := s.receipt()
			p := rec.RunParameters
			// Every layer, named from the machine rather than from the
			// doctor's run, which is a run of the same build.
			var every []any
			for _, l := range layersAlone {
				if l.layer != core.LayerLandlockFamily || doctor.Machine.LandlockABI > 0 {
					every = append(every, MatchRegexp(layerPattern(l.layer).String()))
				}
			}
			Expect(p.ConfinementLayers).To(ConsistOf(every...), "%s", r)
			if wantReason == "" { // the doctor's, read once the suite has started
				wantReason = "^" + regexp.QuoteMeta(kernelPart(doctor.Default).Reason) + "$"
			}
			Expect(kernelHeld(rec).Reason).To(MatchRegexp(wantReason), "%s", r)
		},
		Entry("the normal build never reads it", false, "seccomp", ""),
		Entry("a knock-out build given a name that is no layer says so", true, "capabilities-dropped",
			linux.LayersOnlyEnv+`=capabilities-dropped names no layer .*: every layer was applied`),
	)
})

var _ = Describe(linux.LandlockABIEnv, func() {
	DescribeTable("applies Landlock at the kernel's ABI where it is not a knock-out build's switch of one ABI",
		func(knockedOut bool, value string, wantABI int, wantGap string) {
			if goruntime.GOOS != string(confine.Linux) {
				Skip("the switch names a Landlock ABI")
			}
			if doctor.Machine.LandlockABI < 2 {
				Skip(fmt.Sprintf("this kernel's Landlock ABI is %d: there is none older to apply", doctor.Machine.LandlockABI))
			}
			s := newScratch()
			c := call{args: []string{"--allow", "io", s.file("prog.vel", hello)}, env: []string{linux.LandlockABIEnv + "=" + value}}
			if knockedOut {
				c.bin = knockout()
			}
			r := s.runWith(c)
			Expect(r.exit).To(Equal(0), "%s", r)
			if wantABI == 0 {
				wantABI = doctor.Machine.LandlockABI
			}
			p := s.receipt().RunParameters
			Expect(p.ConfinementLayers).To(ContainElement(fmt.Sprintf("landlock-abi%d", wantABI)), "%s", r)
			var texts []string
			for _, g := range p.ConfinementGaps {
				texts = append(texts, g.Text)
			}
			if wantGap == "" {
				Expect(texts).NotTo(ContainElement(ContainSubstring(linux.LandlockABIEnv)), "%s", r)
			} else {
				Expect(texts).To(ContainElement(MatchRegexp(wantGap)), "%s", r)
			}
		},
		Entry("the normal build never reads it", false, "1", 0, ""),
		Entry("a knock-out build given ABI 1 applies ABI 1 and says so", true, "1", 1,
			`^`+linux.LandlockABIEnv+`=1, in a knock-out build: Landlock planned at ABI 1 at most`),
		Entry("a knock-out build given a value that is no ABI says so", true,
			strconv.Itoa(linux.LandlockMaxABI+1), 0,
			fmt.Sprintf(`^%s=%d names no Landlock ABI \(1 to %d\): the kernel's was used$`,
				linux.LandlockABIEnv, linux.LandlockMaxABI+1, linux.LandlockMaxABI)),
	)
})
