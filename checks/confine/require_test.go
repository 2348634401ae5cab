package confinecheck

import (
	"encoding/json"
	"os"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/probe"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// started is the program of these specs: its line on standard output says
// the first statement ran.
const started = `print("started")` + "\n"

var _ = Describe("--require-confinement", cellLabel("require-confinement"), func() {
	DescribeTable("runs a program whose level is at least the one asked for, and refuses the others with E326 before the first statement",
		func(require, allow string, needsConfinement bool, wantLevel core.Level) {
			if needsConfinement && !confined() {
				Skip(noConfinement())
			}
			s := newScratch()
			allow = strings.ReplaceAll(allow, confine.PlaceholderGrant, s.grant)
			r := s.run("--require-confinement", require, "--allow", allow, s.file("prog.vel", started))
			rec := s.receipt()
			p := rec.RunParameters
			Expect(p.Confinement).To(Equal(wantLevel), "%s", r)
			Expect(p.RequireConfinement).To(Equal(core.Level(require)))
			if wantLevel.Rank() >= core.Level(require).Rank() {
				Expect(r.exit).To(Equal(0), "%s", r)
				Expect(r.stdout).To(Equal("started\n"))
				return
			}
			Expect(r.exit).To(Equal(3), "%s", r)
			Expect(r.stdout).To(BeEmpty(), "the first statement ran")
			Expect(rec.Outcome.Code).To(Equal(codes.E326))
			Expect(rec.Outcome.Status).To(Equal(receipt.StatusRefused))
			Expect(rec.Outcome.Message).To(And(ContainSubstring(string(wantLevel)), ContainSubstring(kernelHeld(rec).Reason)))
			Expect(r.stderrLine("sabline: E326: ")).To(ContainSubstring(rec.Outcome.Message))
		},
		Entry("full, under a read grant of a directory not made yet, whose level is partial: refused", "full", "io,fs:read:$GRANT/missing", true, core.Partial),
		Entry("full, under io, whose level is full: run", "full", "io", true, core.Full),
		Entry("partial, under a read grant of a directory not made yet: run", "partial", "io,fs:read:$GRANT/missing", true, core.Partial),
		Entry("partial, under io,ffi:os, whose level is none on every system: refused", "partial", "io,ffi:os", false, core.None),
	)

	DescribeTable("with no level asked, runs a program held at the level this machine holds its budget at, and refuses one held less (E326) before the first statement",
		func(require string, stacked bool, wantLevel core.Level, wantRun bool) {
			if !confined() || doctor.Machine.LandlockABI < 2 {
				Skip("a Landlock ruleset the kernel refuses needs Landlock ABI 2 and later")
			}
			s := newScratch()
			args := []string{"--allow", "io", s.file("prog.vel", started)}
			if require != "" {
				args = append([]string{"--require-confinement", require}, args...)
			}
			c := call{args: args}
			if stacked {
				// This test binary, held by as many Landlock domains as
				// the kernel stacks, executes sabline in its place: the
				// worker's own ruleset is refused (E2BIG).
				c.bin, c.env = os.Args[0], []string{testkit.StackedExecEnv + "=" + sabline}
			}
			r := s.runWith(c)
			rec := s.receipt()
			Expect(rec.RunParameters.Confinement).To(Equal(wantLevel), "%s", r)
			if wantRun {
				Expect(r.exit).To(Equal(0), "%s", r)
				Expect(r.stdout).To(Equal("started\n"))
				return
			}
			Expect(r.exit).To(Equal(3), "%s", r)
			Expect(r.stdout).To(BeEmpty(), "the first statement ran")
			Expect(rec.Outcome.Code).To(Equal(codes.E326))
			Expect(rec.Outcome.Message).To(And(ContainSubstring("this machine holds such a run at level full"),
				ContainSubstring("landlock_restrict_self"), ContainSubstring("--require-confinement partial")))
		},
		Entry("nothing asked, every layer installed: run in full", "", false, core.Full, true),
		Entry("nothing asked, the kernel refusing the worker's Landlock ruleset: refused", "", true, core.Partial, false),
		Entry("none asked, the kernel refusing the worker's Landlock ruleset: run at partial", "none", true, core.Partial, true),
	)

	It("lets eval --confinement-probe, asking for no level, make its attempts where a layer failed to install", func() {
		if !confined() || doctor.Machine.LandlockABI < 2 {
			Skip("a Landlock ruleset the kernel refuses needs Landlock ABI 2 and later")
		}
		s := newScratch()
		r := s.runWith(call{bin: os.Args[0], args: []string{"eval", "--confinement-probe", "--json"},
			env: []string{testkit.StackedExecEnv + "=" + sabline}})
		Expect(r.exit).To(Equal(0), "%s", r)
		var rep probe.Report
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), "%s", r)
		Expect(rep.Confinement.Level).To(Equal(core.Partial), "%s", r)
		Expect(rep.Confinement.Reason).To(ContainSubstring("landlock_restrict_self"))
		Expect(rep.Outcome.Code).NotTo(Equal(codes.E326), "the probe's run was refused: %+v", rep.Outcome)
		Expect(rep.Attempts).To(HaveLen(5), "%s", r)
	})

	It("has doctor say, where a layer fails to install, that a run asking for no level is refused", func() {
		if !confined() || doctor.Machine.LandlockABI < 2 {
			Skip("a Landlock ruleset the kernel refuses needs Landlock ABI 2 and later")
		}
		const says = "every run that asks for no level is refused here"
		var rep struct{ Advice []string }
		s := newScratch()
		r := s.run("doctor", "--json")
		Expect(r.exit).To(Equal(0), "%s", r)
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), "%s", r)
		Expect(rep.Advice).NotTo(ContainElement(ContainSubstring(says)), "the control, every layer installed")
		r = s.runWith(call{bin: os.Args[0], args: []string{"doctor", "--json"},
			env: []string{testkit.StackedExecEnv + "=" + sabline}})
		Expect(r.exit).To(Equal(0), "%s", r)
		Expect(json.Unmarshal([]byte(r.stdout), &rep)).To(Succeed(), "%s", r)
		Expect(rep.Advice).To(ContainElement(And(ContainSubstring(says),
			ContainSubstring("--require-confinement partial or none"))), "%s", r)
	})

	It("never tries the fault-injection hook in a run it refuses", func() {
		if !confined() {
			Skip(noConfinement())
		}
		s := newScratch()
		target := s.unique("written")
		r := s.runWith(call{
			args:  []string{"--require-confinement", "full", "--allow", "io,fs:read:" + s.grant + "/missing", s.file("prog.vel", started)},
			fault: confine.OpWrite + "=" + target,
		})
		rec := s.receipt()
		Expect(rec.Outcome.Code).To(Equal(codes.E326), "%s", r)
		Expect(rec.Faults).To(BeEmpty())
		Expect(exists(target)).To(BeFalse(), "%s was made", target)
	})

	It("is a usage error with --no-confine: E301, exit 2, and nothing runs", func() {
		s := newScratch()
		r := s.run("--require-confinement", "partial", "--no-confine", "--allow", "io", s.file("prog.vel", started))
		Expect(r.exit).To(Equal(2), "%s", r)
		Expect(r.stdout).To(BeEmpty())
		Expect(r.stderrLine("sabline: E301: ")).NotTo(BeEmpty(), "%s", r)
		Expect(s.receipt().Outcome.Code).To(Equal(codes.E301))
	})
})
