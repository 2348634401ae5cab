package confinecheck

import (
	"os"

	"github.com/sabline/sabline/confine/core"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
)

var _ = Describe("--confine strict", cellLabel("ffi-strict"), func() {
	DescribeTable("a host module's own call outside every grant is refused by the kernel, and nothing is made",
		func(allow, program, rowID string) {
			if !confined() {
				Skip(noConfinement())
			}
			s := newScratch()
			target := s.unique("made")
			r := s.run("--allow", allow, "--confine", "strict", s.file("prog.vel", program+"\n"), "--", target)
			rec := s.receipt()

			Expect(exists(target)).To(BeFalse(), "%s was made\n%s", target, r)
			Expect(rec.RunParameters.Confinement).To(BeElementOf(core.Full, core.Partial), "%s", r)
			expectKernelRefusal(r, rec, rowID)
		},
		Entry("nativefmt.render, outside the widening table, writing through its own system calls",
			"io,ffi:nativefmt", `ffi.module("nativefmt").render(ARGS[0], "made\n")`, "no-fs"),
		Entry("pathlib.write_text, which widens to any path without strict",
			"io,ffi:pathlib", `ffi.module("pathlib").write_text(ARGS[0], "made\n")`, "no-fs"),
		Entry("os.system, which turns the layer off without strict",
			"io,ffi:os", `ffi.module("os").system("touch " + ARGS[0])`, "process-start"),
	)

	It("refuses the hook's write outside every grant with the same E319 with an ffi grant as without", func() {
		if !confined() {
			Skip(noConfinement())
		}
		s := newScratch()
		prog := s.file("prog.vel", "x = 1\n")
		target := s.unique("written")
		var messages []string
		for _, flags := range [][]string{
			{"--allow", "io", "--confine", "strict"},
			{"--allow", "io,ffi:json", "--confine", "strict"},
			{"--allow", "io,ffi:json"},
		} {
			r := s.runWith(call{args: append(flags, prog), fault: confine.OpWrite + "=" + target})
			rec := s.receipt()
			Expect(exists(target)).To(BeFalse(), "%s was made\n%s", target, r)
			Expect(r.exit).To(Equal(1), "%s", r)
			Expect(rec.Outcome.Code).To(Equal(codes.E319), "%s", r)
			messages = append(messages, rec.Outcome.Message)
		}
		Expect(messages).To(HaveEach(messages[0]))
	})

	It("without strict, lets nativefmt.render write its file at level none, and says so in one line", func() {
		s := newScratch()
		target := s.unique("rendered")
		r := s.run("--allow", "io,ffi:nativefmt", s.file("prog.vel", `ffi.module("nativefmt").render(ARGS[0], "made\n")`+"\n"), "--", target)
		Expect(r.exit).To(Equal(0), "%s", r)
		Expect(os.ReadFile(target)).To(Equal([]byte("made\n")))
		Expect(s.receipt().RunParameters.Confinement).To(Equal(core.None))
		Expect(r.stderrLines()).To(ConsistOf(And(
			ContainSubstring("ffi:nativefmt is not in the confinement table"),
			ContainSubstring("operating system layer is off"))), "%s", r)
	})
})
