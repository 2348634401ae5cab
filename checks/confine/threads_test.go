package confinecheck

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a confined worker", func() {
	It("holds every one of its threads: no_new_privs set, the seccomp filter installed, capabilities given up", func() {
		if goruntime.GOOS != "linux" {
			Skip("threads are read from /proc/PID/task, which only Linux has")
		}
		if !confined() {
			Skip(noConfinement())
		}
		s := newScratch()
		// The control: a supervisor (it has this process's capabilities)
		// with none but those kept leaves the worker none to give up, and
		// the capability check below would pass whatever the worker did.
		self, err := os.ReadFile("/proc/self/status")
		Expect(err).NotTo(HaveOccurred())
		hasCaps := capSet(self, "CapEff")&^keptCaps != 0
		// The program allocates before its first statement's output, so
		// that the collector runs on the Ps the worker takes once
		// confined; threads the runtime starts then are read here when
		// they exist (confine's TestApplyLayers is the test that starts
		// threads after the policy is applied, always, and reads them).
		prog := s.file("prog.vel", "x = [str(i) for i in range(300000)]\n"+`print("waiting")`+"\n"+"io.read_line()\n")
		By("reading every thread of the worker once its first statement has run, after the policy was applied")
		waitingWorker(s, []string{"--allow", "io", prog}, func(worker int) string {
			tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(worker), "task", "*", "status"))
			Expect(err).NotTo(HaveOccurred())
			Expect(len(tasks)).To(BeNumerically(">", 1), "a Go worker has more than one thread")
			for _, t := range tasks {
				status, err := os.ReadFile(t)
				if errors.Is(err, os.ErrNotExist) {
					continue // the thread has ended since the glob
				}
				Expect(err).NotTo(HaveOccurred())
				Expect(string(status)).To(And(MatchRegexp(`(?m)^NoNewPrivs:\s+1$`), MatchRegexp(`(?m)^Seccomp:\s+2$`)), "%s", t)
				if !hasCaps {
					continue
				}
				// Every capability given up but keptCaps, effective and
				// permitted; none inheritable or ambient.
				for _, set := range []string{"CapEff", "CapPrm", "CapInh", "CapAmb"} {
					kept := keptCaps
					if set == "CapInh" || set == "CapAmb" {
						kept = 0
					}
					caps := capSet(status, set)
					Expect(caps&^kept).To(BeZero(), "%s: %s is %x", t, set, caps)
				}
			}
			return ""
		})
		if !hasCaps {
			Skip("not root: no capabilities to give up")
		}
	})
})

// keptCaps are the capabilities a confined worker may keep, effective and
// permitted: CAP_DAC_OVERRIDE (1) and CAP_DAC_READ_SEARCH (2).
const keptCaps uint64 = 1<<1 | 1<<2

// capSet returns the capability set named set ("CapEff") of a
// /proc/PID/status text, failing the spec when it has none.
func capSet(status []byte, set string) uint64 {
	GinkgoHelper()
	m := regexp.MustCompile(`(?m)^` + set + `:\s+([0-9a-f]+)$`).FindSubmatch(status)
	Expect(m).NotTo(BeNil(), "the status has no %s line", set)
	caps, err := strconv.ParseUint(string(m[1]), 16, 64)
	Expect(err).NotTo(HaveOccurred())
	return caps
}
