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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/runtime"
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
		cmd := exec.Command(sabline, "--allow", "io", s.file("prog.vel", `print("waiting")`+"\n"+"io.read_line()\n"))
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

		worker := workerOf(cmd.Process.Pid)
		Expect(worker).NotTo(BeZero(), "no child of %d has %s as its first argument", cmd.Process.Pid, runtime.WorkerArg)
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
			// Every capability given up but CAP_DAC_OVERRIDE (1) and
			// CAP_DAC_READ_SEARCH (2): at most 0x6 effective and permitted,
			// none inheritable or ambient.
			for _, set := range []string{"CapEff", "CapPrm", "CapInh", "CapAmb"} {
				m := regexp.MustCompile(`(?m)^` + set + `:\s+([0-9a-f]+)$`).FindStringSubmatch(string(status))
				Expect(m).NotTo(BeNil(), "%s has no %s line", t, set)
				caps, err := strconv.ParseUint(m[1], 16, 64)
				Expect(err).NotTo(HaveOccurred())
				kept := uint64(0x6)
				if set == "CapInh" || set == "CapAmb" {
					kept = 0
				}
				Expect(caps&^kept).To(BeZero(), "%s: %s is %s", t, set, m[1])
			}
		}

		By("closing standard input, which ends the run")
		Expect(stdin.Close()).To(Succeed())
		<-done
		Expect(waitErr).NotTo(HaveOccurred())
	})
})

// workerOf returns the pid of the child of supervisor started with the
// hidden worker argument, or 0.
func workerOf(supervisor int) int {
	dirs, err := filepath.Glob("/proc/[0-9]*")
	Expect(err).NotTo(HaveOccurred())
	for _, dir := range dirs {
		status, err := os.ReadFile(filepath.Join(dir, "status"))
		if err != nil || !strings.Contains(string(status), "\nPPid:\t"+strconv.Itoa(supervisor)+"\n") {
			continue // gone since the glob, or another's child
		}
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if argv := strings.Split(string(cmdline), "\x00"); err == nil && len(argv) > 1 && argv[1] == runtime.WorkerArg {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			return pid
		}
	}
	return 0
}
