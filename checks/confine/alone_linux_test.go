package confinecheck

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/receipt"
)

// This file holds what Landlock holds on Linux beside seccomp, each
// attempted with every layer alone and watched from outside the worker:
// the operations of the honesty table are the hook's (a file beneath no
// rule, a TCP connect), and seccomp refuses the calls below before
// Landlock would see them, so that a Landlock right or scope dropped from
// the ruleset would pass every spec that applies both.

// aloneRun is one run of the knock-out build with one layer alone (only
// is a value of linux.LayersOnlyEnv), its receipt asserted to name that
// layer and nothing else.
func aloneRun(s *scratch, c call, only, layer string) (ran, *receipt.Receipt) {
	GinkgoHelper()
	c.bin = knockout()
	c.env = append(c.env, linux.LayersOnlyEnv+"="+only)
	r := s.runWith(c)
	rec := s.receipt()
	Expect(rec.RunParameters.ConfinementLayers).To(
		ConsistOf(MatchRegexp(layerPattern(layer).String())),
		"%s=%s did not leave the worker %s alone\n%s", linux.LayersOnlyEnv, only, layer, r)
	return r, rec
}

// expectRefusedAlone: the run ended in E319, its refusal naming layer and
// nothing else.
func expectRefusedAlone(layer string, r ran, rec *receipt.Receipt) {
	GinkgoHelper()
	Expect(rec.Outcome.Code).To(Equal(codes.E319), "%s", r)
	named, _ := namedLayers(rec.Outcome.Message)
	Expect(named).To(ConsistOf(MatchRegexp(layerPattern(layer).String())),
		"with %s alone applied, the refusal must name it and nothing else\n%s", layer, r)
}

// skipBelowABI skips a spec whose Landlock part this kernel's ABI does
// not offer.
func skipBelowABI(abi int, what string) {
	if have := confine.Probe().LandlockABI; have < abi {
		Skip(fmt.Sprintf("Landlock holds %s from ABI %d; this kernel offers %d", what, abi, have))
	}
}

var _ = Describe("what Landlock holds beside seccomp, each layer alone", func() {
	BeforeEach(func() {
		if !confined() {
			Skip(noConfinement())
		}
	})

	// Execute is handled always and granted nowhere: not beneath a
	// directory granted for reading and writing, where a program may make
	// the file it would run, nor a read grant, nor a grant of every path.
	// The hook's exec of the honesty table is of a file beneath no rule,
	// which would pass with execute granted wherever the budget grants a
	// path. The file run is a copy of this test binary, which writes the
	// file execMarkerEnv names (the env grant hands the variable on).
	DescribeTable("process-start: a file beneath a grant is not executed", cellLabel("process-start"),
		func(allow, program, marker string) {
			s := newScratch()
			expand := func(p string) string {
				return strings.ReplaceAll(p, confine.PlaceholderGrant, s.grant)
			}
			allow, program, marker = expand(allow), expand(program), expand(marker)
			Expect(os.MkdirAll(filepath.Dir(program), 0o755)).To(Succeed())
			Expect(os.MkdirAll(filepath.Dir(marker), 0o755)).To(Succeed())
			copyExecutable(os.Args[0], program)
			prog := s.file("prog.vel", "x = 1\n")
			c := func() call {
				Expect(os.Remove(marker)).To(Or(Succeed(), MatchError(os.ErrNotExist)))
				return call{args: []string{"--allow", allow, prog},
					fault: confine.OpExec + "=" + program, env: []string{execMarkerEnv + "=" + marker}}
			}

			By("--no-confine, the control: the file runs, and its mark is seen from outside")
			cc := c()
			cc.args = append([]string{"--no-confine"}, cc.args...)
			r := s.runWith(cc)
			Expect(r.exit).To(Equal(0), "%s", r)
			Expect(exists(marker)).To(BeTrue(), "the file did not run under --no-confine\n%s", r)

			row, _ := confine.EnforcesRow("process-start")
			for _, l := range layersAlone {
				if l.layer == core.LayerCapabilities {
					continue // the cell does not rely on it
				}
				Expect(row.Cells[confine.Linux].Layers).To(ContainElement(l.layer))
				By(l.layer + " alone: the file does not run")
				r, rec := aloneRun(s, c(), l.only, l.layer)
				Expect(exists(marker)).To(BeFalse(), "with %s alone, %s ran\n%s", l.layer, program, r)
				expectRefusedAlone(l.layer, r, rec)
			}
		},
		// Executing opens the file for reading too: a write grant alone
		// could not run it, one read and written could.
		Entry("beneath a directory granted for reading and writing",
			"io,env,fs:read:$GRANT,fs:write:$GRANT", "$GRANT/made", "$GRANT/ran"),
		Entry("beneath a read grant",
			"io,env,fs:read:$GRANT/ro,fs:write:$GRANT/out", "$GRANT/ro/made", "$GRANT/out/ran"),
		Entry("beneath a grant of every path", "io,env,fs", "$GRANT/made", "$GRANT/ran"),
	)

	// From ABI 4 Landlock refuses every TCP bind, under any net grant: a
	// run listens on no port. seccomp refuses the socket first.
	It("net-any: a host module's listen is never reached from outside, with either layer alone",
		cellLabel("net-any"), func() {
			skipBelowABI(linux.LandlockABITCP, "TCP binds")
			s := newScratch()
			prog := s.file("listen.vel", listenProgram)
			allow := []string{"--allow", "io,net,ffi:ctypes", prog}
			strict := append([]string{"--confine", "strict"}, allow...)

			By("--no-confine, the control: a connection to the port is accepted while the program waits")
			heard, r := s.listenRun(call{args: append([]string{"--no-confine"}, allow...)})
			Expect(heard).To(BeTrue(), "nothing listened\n%s", r)

			for _, want := range []struct{ only, layer, stdout string }{
				{"landlock", core.LayerLandlockFamily, "socket \nbind EACCES\n"},
				{"seccomp", core.LayerSeccomp, "socket EPERM\n"},
			} {
				By(want.layer + " alone: nothing listens")
				heard, r := s.listenRun(call{bin: knockout(), args: strict,
					env: []string{linux.LayersOnlyEnv + "=" + want.only}})
				rec := s.receipt()
				Expect(rec.RunParameters.ConfinementLayers).To(
					ConsistOf(MatchRegexp(layerPattern(want.layer).String())), "%s", r)
				Expect(heard).To(BeFalse(), "with %s alone, a connection was accepted\n%s", want.layer, r)
				Expect(r.stdout).To(Equal(want.stdout), "%s", r)
			}
		})

	// From ABI 6 Landlock scopes abstract Unix sockets to the run: a
	// connection to one a process outside the worker listens on is
	// refused. seccomp refuses the socket first.
	It("no-net: an abstract Unix socket outside the run is never reached, with either layer alone",
		cellLabel("no-net"), func() {
			skipBelowABI(linux.LandlockABIScopes(), "abstract Unix sockets")
			s := newScratch()
			name := fmt.Sprintf("sabline-check-%d-%d", os.Getpid(), time.Now().UnixNano())
			l, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@" + name, Net: "unix"})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(l.Close)
			prog := s.file("abstract.vel", `c = ffi.module("ctypes")
s = c.syscall("socket", 1, 1, 0)
print("socket", s.errno)
if s.errno == "":
    r = c.syscall("connect", s.ret, b"\x01\x00\x00" + bytes(ARGS[0]), 3 + len(ARGS[0]))
    print("connect", r.errno)
    if r.errno == "":
        c.syscall("write", s.ret, b"reached\n", 8)
`)
			args := []string{"--allow", "io,ffi:ctypes", prog, "--", name}
			strict := append([]string{"--confine", "strict"}, args...)

			By("--no-confine, the control: the listener outside the worker is reached")
			r := s.runWith(call{args: append([]string{"--no-confine"}, args...)})
			Expect(r.stdout).To(Equal("socket \nconnect \n"), "%s", r)
			Expect(reachedAbstract(l, name)).To(Equal(1), "%s", r)

			for _, want := range []struct{ only, layer, stdout string }{
				{"landlock", core.LayerLandlockFamily, "socket \nconnect EPERM\n"},
				{"seccomp", core.LayerSeccomp, "socket EPERM\n"},
			} {
				By(want.layer + " alone: the listener is not reached")
				r, _ := aloneRun(s, call{args: strict}, want.only, want.layer)
				Expect(reachedAbstract(l, name)).To(BeZero(),
					"with %s alone, the listener outside the run was reached\n%s", want.layer, r)
				Expect(r.stdout).To(Equal(want.stdout), "%s", r)
			}
		})
})

// reachedAbstract returns how many connections the abstract listener l
// took before now, asked once the run has ended: it connects a probe of
// its own, which the kernel queues behind whatever the run connected, and
// accepts up to it, each connection read to its line.
func reachedAbstract(l *net.UnixListener, name string) int {
	GinkgoHelper()
	probe, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: "@" + name, Net: "unix"})
	Expect(err).NotTo(HaveOccurred(), "the witness's probe of its own listener")
	defer probe.Close()
	_, err = probe.Write([]byte(probeLine + "\n"))
	Expect(err).NotTo(HaveOccurred())
	Expect(l.SetDeadline(time.Now().Add(runLimit()))).To(Succeed())
	n := 0
	for {
		c, err := l.Accept()
		Expect(err).NotTo(HaveOccurred(), "the probe was not accepted")
		_ = c.SetDeadline(time.Now().Add(runLimit()))
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if line == probeLine+"\n" {
			return n
		}
		n++
	}
}

// copyExecutable copies the file from to a new file to, executable.
func copyExecutable(from, to string) {
	GinkgoHelper()
	in, err := os.Open(from)
	Expect(err).NotTo(HaveOccurred())
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	Expect(err).NotTo(HaveOccurred())
	_, err = io.Copy(out, in)
	Expect(errors.Join(err, out.Close())).To(Succeed())
}
