package confinecheck

import (
	"os"
	"path/filepath"
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

// expectConfinedRun: the run ended well, under a level above none.
func expectConfinedRun(r ran, rec *receipt.Receipt) {
	GinkgoHelper()
	Expect(r.exit).To(Equal(0), "%s", r)
	Expect(rec.RunParameters.Confinement).To(BeElementOf(core.Full, core.Partial), "%s", r)
}

var _ = Describe("under confinement", func() {
	BeforeEach(func() {
		if !confined() {
			Skip(noConfinement())
		}
	})

	Describe("files", func() {
		It("reads a file in the granted directory", func() {
			s := newScratch()
			in := filepath.Join(s.grant, "in.txt")
			Expect(os.WriteFile(in, []byte("granted"), 0o644)).To(Succeed())
			r := s.run("--allow", "io,fs:read:"+s.grant, s.file("prog.vel", "print(fs.read(ARGS[0]))\n"), "--", in)
			expectConfinedRun(r, s.receipt())
			Expect(r.stdout).To(Equal("granted\n"))
		})

		It("refuses, by the kernel alone, a read outside it (knock-out build)", func() {
			s := newScratch()
			out := s.unique("secret")
			Expect(os.WriteFile(out, []byte("not granted"), 0o644)).To(Succeed())
			r := s.runWith(call{bin: knockout(), args: []string{
				"--allow", "io,fs:read:" + s.grant, s.file("prog.vel", "print(fs.read(ARGS[0]))\n"), "--", out}})
			expectKernelRefusal(r, s.receipt(), "fs-read-dir")
			Expect(r.stdout).To(BeEmpty())
		})

		It("writes a file in the granted directory", func() {
			s := newScratch()
			made := filepath.Join(s.grant, "made.txt")
			r := s.run("--allow", "io,fs:write:"+s.grant, s.file("prog.vel", `fs.write(ARGS[0], "made\n")`+"\n"), "--", made)
			expectConfinedRun(r, s.receipt())
			Expect(os.ReadFile(made)).To(Equal([]byte("made\n")))
		})

		It("refuses, by the kernel alone, a write outside it (knock-out build)", func() {
			s := newScratch()
			made := s.unique("made")
			r := s.runWith(call{bin: knockout(), args: []string{
				"--allow", "io,fs:write:" + s.grant, s.file("prog.vel", `fs.write(ARGS[0], "made\n")`+"\n"), "--", made}})
			expectKernelRefusal(r, s.receipt(), "fs-write-dir")
			Expect(exists(made)).To(BeFalse(), "%s was made", made)
		})
	})

	Describe("the network", func() {
		const client = `c = net.connect("127.0.0.1", int(ARGS[0]))
c.send("hello\n")
print(c.recv(1024).strip())
c.close()
`
		It("connects to a granted loopback port", func() {
			s := newScratch()
			l := listen()
			port := strconv.Itoa(l.port)
			r := s.run("--allow", "io,net:127.0.0.1:"+port, s.file("prog.vel", client), "--", port)
			expectConfinedRun(r, s.receipt())
			Expect(r.stdout).To(Equal("echo: hello\n"))
		})

		It("refuses, by the kernel alone, a connection to a port not granted (knock-out build)", func() {
			if doctor.Machine.LandlockABI < linux.LandlockABITCP {
				Skip("Landlock ABI " + strconv.Itoa(linux.LandlockABITCP) + " holds TCP ports; this kernel offers ABI " + strconv.Itoa(doctor.Machine.LandlockABI))
			}
			s := newScratch()
			granted, other := listen(), listen()
			r := s.runWith(call{bin: knockout(), args: []string{
				"--allow", "io,net:127.0.0.1:" + strconv.Itoa(granted.port), s.file("prog.vel", client), "--", strconv.Itoa(other.port)}})
			expectKernelRefusal(r, s.receipt(), "net-host")
			Expect(other.heard()).To(BeFalse(), "the listener on the port not granted read a line")
		})

		// The receiver's count, read outside the worker, is the witness.
		const sender = `c = net.udp("127.0.0.1", int(ARGS[0]))
c.send("hello")
c.close()
print("sent")
`
		It("sends a datagram to a granted loopback UDP port", cellLabel("net-udp"), func() {
			s := newScratch()
			u := receiveUDP()
			port := strconv.Itoa(u.port)
			r := s.run("--allow", "io,net:udp:127.0.0.1:"+port, s.file("prog.vel", sender), "--", port)
			expectConfinedRun(r, s.receipt())
			Expect(r.stdout).To(Equal("sent\n"))
			Expect(u.count()).To(Equal(1), "the granted port did not get the datagram")
		})

		It("refuses, by the kernel alone, a datagram under a TCP grant of the same port (knock-out build)", cellLabel("net-host"), func() {
			s := newScratch()
			u := receiveUDP()
			port := strconv.Itoa(u.port)
			args := []string{"--allow", "io,net:127.0.0.1:" + port, s.file("prog.vel", sender), "--", port}
			By("--no-confine: the datagram arrives")
			r := s.runWith(call{bin: knockout(), args: append([]string{"--no-confine"}, args...)})
			Expect(r.stdout).To(Equal("sent\n"), "%s", r)
			Expect(u.count()).To(Equal(1), "the control's datagram did not arrive: the receiver cannot see the attempt")

			By("confined: the filter refuses the datagram socket, and nothing arrives")
			r = s.runWith(call{bin: knockout(), args: args})
			expectKernelRefusal(r, s.receipt(), "net-host")
			Expect(u.count()).To(BeZero(), "a datagram arrived under a TCP grant")
		})

		It("leaves a datagram's port to the language under a UDP grant, as the cell says (knock-out build)", cellLabel("net-udp"), func() {
			s := newScratch()
			granted, other := receiveUDP(), receiveUDP()
			r := s.runWith(call{bin: knockout(), args: []string{"--allow", "io,net:udp:127.0.0.1:" + strconv.Itoa(granted.port),
				s.file("prog.vel", sender), "--", strconv.Itoa(other.port)}})
			Expect(cellOf("net-udp").Holds).To(Equal(confine.HoldsPartly), "the cell no longer says the port is the language's")
			expectConfinedRun(r, s.receipt())
			Expect(other.count()).To(Equal(1), "the datagram to the port not granted did not arrive: the cell says only the language holds it")
			Expect(granted.count()).To(BeZero())
		})
	})

	It("answers a tool call on the host's tool channel, not on standard output", func() {
		s := newScratch()
		worker, asked := toolHost(`{"sum": 5}`)
		r := s.runWith(call{args: []string{"--allow", "io,tool", "--tool-fd", "3",
			s.file("prog.vel", `print(tool.call("add", {"a": 2, "b": 3})["sum"])`+"\n")}, extra: []*os.File{worker}})
		worker.Close()
		expectConfinedRun(r, s.receipt())
		Expect(asked()).To(Equal(`{"args":{"a":2,"b":3},"tool":"add"}` + "\n"))
		Expect(r.stdout).To(Equal("5\n"))
	})

	DescribeTable("what no kernel layer holds still works",
		func(allow, program, stdin, want string) {
			s := newScratch()
			s.file("lib/greet.vel", "def greet(name):\n    return \"hello, \" + name\n")
			c := call{args: []string{"--allow", allow, s.file("prog.vel", program+"\n")}}
			if stdin != "" {
				c.stdin = strings.NewReader(stdin)
			}
			r := s.runWith(c)
			expectConfinedRun(r, s.receipt())
			Expect(r.stdout).To(MatchRegexp(want))
		},
		Entry("env.get", "io,env", `print(env.get("HOME"))`, "", `home\n$`),
		Entry("clock.now", "io,clock", `print(clock.now() > 0)`, "", `^True\n$`),
		Entry("rand.int", "io,rand", `print(rand.int(6) in range(6))`, "", `^True\n$`),
		Entry("a load() of a library", "io", `load("lib/greet.vel", "greet")`+"\n"+`print(greet("world"))`, "", `^hello, world\n$`),
		Entry("print", "io", `print("hello")`, "", `^hello\n$`),
	)

	DescribeTable("limits end the run as documented", cellLabel("limits"),
		func(flag, value, program string, wantExit int, wantCode codes.Code, wantMessage string) {
			s := newScratch()
			r := s.run(flag, value, s.file("prog.vel", program))
			Expect(r.exit).To(Equal(wantExit), "%s", r)
			Expect(s.receipt().Outcome.Code).To(Equal(wantCode))
			Expect(r.stderrLine("sabline: "+string(wantCode)+": ")).To(MatchRegexp(`^sabline: %s: %s$`, wantCode, wantMessage), "%s", r)
		},
		// The message of E308 says how much the run used, over the limit:
		// a worker that crashed some other way does not pass for one that
		// ran out of memory.
		Entry("--max-memory-mb: E308, exit 125", "--max-memory-mb", "64",
			"rows = []\nwhile True:\n    rows.append(\"x\" * 1000)\n", 125, codes.E308, `the run used [0-9]+ MB, over its memory limit of 64 MB`),
		Entry("--timeout: E307, exit 124", "--timeout", "1s", "while True:\n    pass\n", 124, codes.E307, `the run took longer than its timeout 1s and was stopped`),
	)
})
