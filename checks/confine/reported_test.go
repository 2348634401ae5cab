package confinecheck

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strings"

	"github.com/sabline/sabline/confine/core"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/sabline/sabline/audit"
	"github.com/sabline/sabline/confine"
)

// hello is the program of these specs.
const hello = `print("hello")` + "\n"

// netHostLevel and netHostReason are the level and reason of a run under
// io,net:localhost:8080 on this system: full on Linux, where the
// supervisor makes every connection the budget grants, partial elsewhere.
var netHostLevel, netHostReason = func() (core.Level, string) {
	if goruntime.GOOS == string(confine.Linux) {
		return core.Full, `held by the kernel.*supervisor makes each one the budget grants`
	}
	return core.Partial, `net:localhost:8080 .*held by the language alone`
}()

var _ = Describe("what is reported", func() {
	DescribeTable("a receipt records the level, its reason and the layers applied, and the digest `sabline os-policy` prints",
		func(flag, allow string, needsConfinement bool, wantLevel core.Level, wantReason string) {
			if needsConfinement && !confined() {
				Skip(noConfinement())
			}
			s := newScratch()
			allow = strings.ReplaceAll(allow, confine.PlaceholderGrant, s.grant)
			wantReason = strings.ReplaceAll(wantReason, confine.PlaceholderGrant, regexp.QuoteMeta(s.grant))
			args := []string{"--allow", allow, s.file("prog.vel", hello)}
			if flag != "" {
				args = append([]string{flag}, args...)
			}
			r := s.run(args...)
			Expect(r.exit).To(Equal(0), "%s", r)
			p := s.receipt().RunParameters
			Expect(p.Confinement).To(Equal(wantLevel))
			Expect(p.ConfinementReason).To(MatchRegexp(wantReason))
			if wantLevel == core.None {
				Expect(p.ConfinementLayers).To(BeEmpty())
			} else {
				Expect(p.ConfinementLayers).NotTo(BeEmpty())
			}

			policy := s.run("os-policy", "--allow", allow, "--json")
			Expect(policy.exit).To(Equal(0), "%s", policy)
			var printed struct {
				SHA256 string `json:"sha256"`
			}
			Expect(json.Unmarshal([]byte(policy.stdout), &printed)).To(Succeed())
			Expect(p.OSPolicySHA256).To(Equal(printed.SHA256))
		},
		Entry("full: io", "", "io", true, core.Full, `held by the kernel`),
		Entry("a granted host: full where the supervisor makes the connections (Linux), partial where the language alone holds the host",
			"", "io,net:localhost:8080", true, netHostLevel, netHostReason),
		Entry("partial: a granted directory that does not exist yet", "", "io,fs:read:$GRANT/missing", true, core.Partial,
			`\$GRANT/missing does not exist yet`),
		Entry("none: --no-confine", "--no-confine", "io", false, core.None, `--no-confine`),
		Entry("none: ffi:os", "", "io,ffi:os", false, core.None, `ffi:os .*operating system layer is off`),
	)

	It("names, in `receipts diff`, a run weaker than the earlier runs of its program", func() {
		if !confined() {
			Skip(noConfinement())
		}
		s := newScratch()
		prog := s.file("prog.vel", hello)
		Expect(s.run("--allow", "io", prog).exit).To(Equal(0))
		Expect(s.run("--no-confine", "--allow", "io", prog).exit).To(Equal(0))
		weaker := s.receipt()
		r := s.run("receipts", "diff")
		Expect(r.exit).To(Equal(1), "%s", r)
		Expect(r.stdout).To(MatchRegexp(`(?m)^` + weaker.RunID + ` .*: level none .*: WEAKER$`))
	})

	DescribeTable("standard error says when the operating system layer is off, in one line, and only then",
		func(flag, allow string, want []types.GomegaMatcher) {
			s := newScratch()
			args := []string{"--allow", allow, s.file("prog.vel", hello)}
			if flag != "" {
				args = append([]string{flag}, args...)
			}
			r := s.run(args...)
			Expect(r.exit).To(Equal(0), "%s", r)
			Expect(r.stdout).To(Equal("hello\n"))
			Expect(r.stderrLines()).To(ConsistOf(want), "%s", r)
		},
		Entry("io: no line", "", "io", nil),
		Entry("ffi:json, which widens nothing: no line", "", "io,ffi:json", nil),
		Entry("ffi:pathlib, which widens to any path and leaves the layer on: no line", "", "io,ffi:pathlib", nil),
		Entry("--no-confine: one line", "--no-confine", "io", []types.GomegaMatcher{
			HavePrefix("sabline: --no-confine: ")}),
		Entry("ffi:os and ffi:nativefmt: one line naming both", "", "io,ffi:os,ffi:nativefmt", []types.GomegaMatcher{And(
			ContainSubstring("ffi:os"), ContainSubstring("ffi:nativefmt"), ContainSubstring("operating system layer is off"))}),
	)

	It("has `doctor --json` say what this machine offers: Landlock, and level full for the default budget", func() {
		if goruntime.GOOS != string(confine.Linux) {
			Skip("Landlock is a Linux module")
		}
		r := newScratch().run("doctor", "--json")
		Expect(r.exit).To(Equal(0), "%s", r)
		var d doctorReport
		Expect(json.Unmarshal([]byte(r.stdout), &d)).To(Succeed())
		Expect(d.Machine.LandlockABI).To(BeNumerically(">=", 1))
		Expect(d.Default.Level).To(Equal(core.Full), "%s", r)
	})

	It("has `audit --json` of examples/hello.vel predict level full on Linux", func() {
		hello, err := filepath.Abs(filepath.Join("..", "..", "examples", "hello.vel"))
		Expect(err).NotTo(HaveOccurred())
		r := newScratch().run("audit", "--json", hello)
		Expect(r.exit).To(Equal(0), "%s", r)
		var a audit.Audit
		Expect(json.Unmarshal([]byte(r.stdout), &a)).To(Succeed())
		Expect(a.Confinement).To(HaveKeyWithValue(string(confine.Linux), HaveField("Level", core.Full)))
	})

	DescribeTable("a run the supervisor ends records the confinement its worker had, as doctor measured it for the same budget",
		func(flag, value, program string) {
			s := newScratch()
			r := s.run(flag, value, s.file("prog.vel", program))
			Expect(r.exit).NotTo(Equal(0), "%s", r)
			Expect(kernelHeld(s.receipt())).To(Equal(kernelPart(doctor.Default)),
				"the worker was confined before its first statement; the receipt must say how")
		},
		Entry("at its --timeout", "--timeout", "1s", "while True:\n    pass\n"),
		Entry("past its --max-memory-mb", "--max-memory-mb", "64", "rows = []\nwhile True:\n    rows.append(\"x\" * 1000)\n"),
	)
})
