package confinecheck

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/sabline/sabline/confine/core"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/receipt"
)

// echoClient connects to the loopback port ARGS[0] names, sends a line
// and prints the listener's answer (loopback's "echo: hello").
const echoClient = `c = net.connect("127.0.0.1", int(ARGS[0]))
c.send("hello\n")
print(c.recv(1024).strip())
c.close()
`

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
		const client = echoClient
		// onlyBrokered skips a spec about the connections a supervisor makes
		// for its worker where no broker does: off Linux, a confined worker
		// still dials for itself.
		onlyBrokered := func() {
			if goruntime.GOOS != string(confine.Linux) {
				Skip("no broker on " + goruntime.GOOS + ": the worker makes its own connections")
			}
		}

		It("connects to a granted loopback port, the supervisor making the connection", func() {
			s := newScratch()
			l := listen()
			port := strconv.Itoa(l.port)
			r := s.run("--allow", "io,net:127.0.0.1:"+port, s.file("prog.vel", client), "--", port)
			rec := s.receipt()
			expectConfinedRun(r, rec)
			Expect(r.stdout).To(Equal("echo: hello\n"))
			Expect(l.heard()).To(BeTrue(), "the granted listener read no line")
			if goruntime.GOOS != string(confine.Linux) {
				return
			}
			Expect(rec.Observed.Connections).To(ConsistOf(And(
				HaveField("Network", "tcp"), HaveField("Host", "127.0.0.1"), HaveField("Port", l.port),
				HaveField("Grant", "net:127.0.0.1:"+port), HaveField("Address", "127.0.0.1:"+port),
				HaveField("SentBytes", HaveValue(BeEquivalentTo(len("hello\n")))),
				HaveField("ReceivedBytes", HaveValue(BeEquivalentTo(len("echo: hello\n")))),
				HaveField("Code", codes.Code("")))), "the receipt's observed connections")
		})

		It("refuses a connection to a port not granted, by the supervisor, whose checks the knock-out build keeps", cellLabel("net-host"), func() {
			onlyBrokered()
			s := newScratch()
			granted, other := listen(), listen()
			args := []string{"--allow", "io,net:127.0.0.1:" + strconv.Itoa(granted.port),
				s.file("prog.vel", client), "--", strconv.Itoa(other.port)}
			By("--no-confine: the program dials the port itself, and the listener hears it")
			r := s.runWith(call{bin: knockout(), args: append([]string{"--no-confine"}, args...)})
			Expect(r.stdout).To(Equal("echo: hello\n"), "%s", r)
			Expect(other.heard()).To(BeTrue(), "the control's connection was not heard: the listener cannot see the attempt")

			By("confined: the supervisor makes no connection the budget does not grant (E302)")
			r = s.runWith(call{bin: knockout(), args: args})
			rec := s.receipt()
			Expect(r.exit).To(Equal(1), "%s", r)
			Expect(rec.Outcome.Code).To(Equal(codes.E302), "%s", r)
			Expect(rec.Observed.Connections).To(ConsistOf(And(
				HaveField("Network", "tcp"), HaveField("Port", other.port), HaveField("Grant", ""),
				HaveField("Address", ""), HaveField("Code", codes.E302), HaveField("Refused", Not(BeEmpty())))),
				"the receipt lists the refusal")
			Expect(other.heard()).To(BeFalse(), "the listener on the port not granted read a line")
			Expect(granted.heard()).To(BeFalse(), "the granted listener read a line it was never sent")
		})

		// A socket of the program's own, made by raw calls (knock-out build,
		// where ffi:ctypes needs no grant): the descriptor a dial would use.
		const rawClient = `c = ffi.module("ctypes")
p = int(ARGS[0])
s = c.syscall("socket", 2, 1, 0)  # AF_INET, SOCK_STREAM
print("socket", s.errno)
if s.errno == "":
    r = c.syscall("connect", s.ret, b"\x02\x00" + bytes([p >> 8, p & 255]) + b"\x7f\x00\x00\x01" + b"\x00" * 8, 16)
    print("connect", r.errno)
    if r.errno == "":
        c.syscall("write", s.ret, "raw\n", 4)
`
		It("makes no connection of the worker's own, to the granted port either: the filter refuses its socket (knock-out build)", cellLabel("net-host"), func() {
			onlyBrokered()
			s := newScratch()
			l := listen()
			port := strconv.Itoa(l.port)
			args := []string{"--allow", "io,net:127.0.0.1:" + port, s.file("raw.vel", rawClient), "--", port}
			By("--no-confine: the raw connect reaches the listener")
			r := s.runWith(call{bin: knockout(), args: append([]string{"--no-confine"}, args...)})
			Expect(r.stdout).To(Equal("socket \nconnect \n"), "%s", r)
			Expect(l.heard()).To(BeTrue(), "the control's line was not heard: the listener cannot see the attempt")

			By("confined: socket is EPERM, and the listener hears nothing")
			r = s.runWith(call{bin: knockout(), args: args})
			rec := s.receipt()
			Expect(r.exit).To(Equal(0), "%s", r)
			Expect(rec.RunParameters.Confinement).To(Equal(core.Full), "%s", r)
			Expect(r.stdout).To(Equal("socket EPERM\n"), "%s", r)
			Expect(l.heard()).To(BeFalse(), "the listener read a line from a socket of the worker's own")
			Expect(rec.Observed.Connections).To(BeEmpty(), "the supervisor made a connection no program asked for")
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
			rec := s.receipt()
			expectConfinedRun(r, rec)
			Expect(r.stdout).To(Equal("sent\n"))
			Expect(u.count()).To(Equal(1), "the granted port did not get the datagram")
			if goruntime.GOOS == string(confine.Linux) {
				Expect(rec.Observed.Connections).To(ConsistOf(And(
					HaveField("Network", "udp"), HaveField("Port", u.port),
					HaveField("Grant", "net:udp:127.0.0.1:"+port), HaveField("Address", "127.0.0.1:"+port),
					HaveField("SentBytes", BeNil()))), "the receipt's observed connections")
			}
		})

		// A datagram of the program's own, by raw calls, to 127.0.0.1:ARGS[0].
		const rawSender = `c = ffi.module("ctypes")
p = int(ARGS[0])
s = c.syscall("socket", 2, 2, 0)  # AF_INET, SOCK_DGRAM
print("socket", s.errno)
if s.errno == "":
    r = c.syscall("sendto", s.ret, "raw", 3, 0, b"\x02\x00" + bytes([p >> 8, p & 255]) + b"\x7f\x00\x00\x01" + b"\x00" * 8, 16)
    print("sendto", r.errno)
`
		DescribeTable("refuses a datagram socket of the worker's own under any net grant (knock-out build)",
			func(grant string, cell string) {
				onlyBrokered()
				s := newScratch()
				u := receiveUDP()
				port := strconv.Itoa(u.port)
				allow := "io," + strings.ReplaceAll(grant, "PORT", port)
				args := []string{"--allow", allow, s.file("raw.vel", rawSender), "--", port}
				By("--no-confine: the datagram arrives")
				r := s.runWith(call{bin: knockout(), args: append([]string{"--no-confine"}, args...)})
				Expect(r.stdout).To(Equal("socket \nsendto \n"), "%s", r)
				Expect(u.count()).To(Equal(1), "the control's datagram did not arrive: the receiver cannot see the attempt")

				By("confined: the filter refuses the socket, and nothing arrives")
				r = s.runWith(call{bin: knockout(), args: args})
				Expect(r.exit).To(Equal(0), "%s", r)
				Expect(r.stdout).To(Equal("socket EPERM\n"), "%s", r)
				Expect(u.count()).To(BeZero(), "a datagram arrived from a socket of the worker's own")
				Expect(cellOf(cell).Holds).To(Equal(confine.HoldsYes))
			},
			Entry("a TCP grant of the same port", cellLabel("net-host"), "net:127.0.0.1:PORT", "net-host"),
			Entry("a UDP grant of another port", cellLabel("net-udp"), "net:udp:127.0.0.1:1", "net-udp"),
		)

		It("refuses a datagram to a port the UDP grant does not name, by the supervisor, whose checks the knock-out build keeps", cellLabel("net-udp"), func() {
			onlyBrokered()
			s := newScratch()
			granted, other := receiveUDP(), receiveUDP()
			args := []string{"--allow", "io,net:udp:127.0.0.1:" + strconv.Itoa(granted.port),
				s.file("prog.vel", sender), "--", strconv.Itoa(other.port)}
			By("--no-confine: the program sends it itself, and it arrives")
			r := s.runWith(call{bin: knockout(), args: append([]string{"--no-confine"}, args...)})
			Expect(r.stdout).To(Equal("sent\n"), "%s", r)
			Expect(other.count()).To(Equal(1), "the control's datagram did not arrive: the receiver cannot see the attempt")

			By("confined: the supervisor makes no socket for it (E302), and nothing arrives")
			r = s.runWith(call{bin: knockout(), args: args})
			rec := s.receipt()
			Expect(r.exit).To(Equal(1), "%s", r)
			Expect(rec.Outcome.Code).To(Equal(codes.E302), "%s", r)
			Expect(rec.Observed.Connections).To(ConsistOf(And(
				HaveField("Network", "udp"), HaveField("Port", other.port), HaveField("Code", codes.E302))),
				"the receipt lists the refusal")
			Expect(other.count()).To(BeZero(), "the datagram to the port not granted arrived")
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
