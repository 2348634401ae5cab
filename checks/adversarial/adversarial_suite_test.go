// Package adversarial_test tries the ways a program, or whoever controls
// the files it is granted, might slip past a grant, each beside its
// positive control: the same operation where the budget grants it, which
// must go through, so that a refusal is known to come from the grant.
//
// The file targets run on both builds: the normal build, where the
// language refuses them, and the knock-out build (-tags
// sabline_knockout), where only the kernel does: .. in paths, long paths,
// symbolic links, hard links, a granted directory swapped for a link
// during a run and between two runs, a NUL and a newline in a grant, and
// grants of directories that do not exist yet. Where a grant lets a target
// through by design (a hard link planted in the grant is a file beneath
// it; a grant is the path as it resolves when the run starts), the spec
// says so and checks that it does.
//
// The host-module targets run on the normal build, with the module
// granted: its own I/O is not checked by the language, so the kernel is
// all that holds it. Under --confine strict a granted module gets the
// budget's paths and hosts and nothing more (nor can it swap its granted
// directory for a link itself); without it, the module is widened as the
// confinement table (core.FFIWidens) says.
//
//	go test ./checks/adversarial/... -v
package adversarial_test

import (
	"os"
	goruntime "runtime"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/checks/internal/suite"
	"github.com/sabline/sabline/internal/testkit/buildbin"
)

func TestAdversarial(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "checks/adversarial", suite.Config(t))
}

// bins are the normal and knock-out builds, made once for the suite.
var bins escape.Binaries

// scratchDir holds every run's scratch world.
var scratchDir string

var _ = BeforeSuite(func() {
	var err error
	bins.Normal, err = buildbin.Sabline()
	Expect(err).NotTo(HaveOccurred())
	bins.Knockout, err = buildbin.Sabline("sabline_knockout")
	Expect(err).NotTo(HaveOccurred())
	scratchDir, err = os.MkdirTemp("", "sabline-adversarial-")
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	buildbin.Cleanup()
	os.RemoveAll(scratchDir)
})

// newScratch makes a scratch world for one spec, removed when it ends.
func newScratch(name string) *escape.Scratch {
	GinkgoHelper()
	s, err := escape.NewScratch(scratchDir, name)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(s.Close)
	return s
}

// run runs program in s with the build bin and returns what it printed.
func run(s *escape.Scratch, bin, budget string, flags []string, program string) escape.Run {
	GinkgoHelper()
	r, err := s.Invoke(bin, budget, flags, program)
	Expect(err).NotTo(HaveOccurred())
	return r
}

// landlockOnly skips a spec whose kernel answers are Landlock's and
// seccomp's, on a system that has neither.
func landlockOnly() {
	if goruntime.GOOS != "linux" {
		Skip("the kernel's answers this spec expects are Landlock's and seccomp's, on Linux; this is " + goruntime.GOOS)
	}
}

// result is a run in one word: the code of a refusal by the language
// (E301, E302, E318), else what became of the attempt: escape.Went, or
// the errno it met.
func result(r escape.Run) string {
	switch r.Code {
	case "E301", "E302", "E318":
		return r.Code
	}
	return r.Attempt()
}
