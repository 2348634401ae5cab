package confinecheck

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/internal/proc"
	"github.com/sabline/sabline/run"
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
		// The worker starts on one P and takes more once confined: the
		// program allocates enough for the collector to run on them, so
		// threads the runtime starts after confinement are among those
		// read below.
		cmd := exec.Command(sabline, "--allow", "io", s.file("prog.vel",
			"x = [str(i) for i in range(300000)]\n"+`print("waiting")`+"\n"+"io.read_line()\n"))
		cmd.Dir, cmd.Env = s.dir, s.env("")
		stdin, err := cmd.StdinPipe()
		Expect(err).NotTo(HaveOccurred())
		stdout, err := cmd.StdoutPipe()
		Expect(err).NotTo(HaveOccurred())
		Expect(cmd.Start()).To(Succeed())
		var waitErr error
		done := make(chan struct{})
		go func() {
			waitErr = cmd.Wait()
			close(done)
		}()
		DeferCleanup(func() {
			_ = cmd.Process.Kill() // gone already when the spec passed
			<-done
		})

		By("waiting for the first statement, which runs after the policy is applied")
		line, err := bufio.NewReader(stdout).ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal("waiting\n"))

		// The control: a supervisor with no capability but those kept
		// leaves the worker none to give up, and the capability check
		// below would pass whatever the worker did.
		supervisor, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "status"))
		Expect(err).NotTo(HaveOccurred())
		hasCaps := capSet(supervisor, "CapEff")&^keptCaps != 0

		worker, ok := proc.Worker(cmd.Process.Pid)
		Expect(ok).To(BeTrue(), "no child of %d has %s as its first argument", cmd.Process.Pid, run.WorkerArg)
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

		By("closing standard input, which ends the run")
		Expect(stdin.Close()).To(Succeed())
		<-done
		Expect(waitErr).NotTo(HaveOccurred())
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
