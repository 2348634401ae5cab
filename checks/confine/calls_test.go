package confinecheck

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strings"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/checks/internal/escape"
	"github.com/sabline/sabline/confine"
)

// refusedCall is a system call the filter refuses, made by a program
// through ctypes with arguments that fail harmlessly where nothing filters
// it: a missing path, a bad descriptor, a bad magic number, no siginfo.
type refusedCall struct {
	name string // as the program prints it
	call string // the ctypes call that makes it
	i386 bool   // made through the i386 entry, which a kernel may not offer
}

// refusedCalls are the calls an earlier audit found refused only by the
// capability drop or Landlock when the filter let them through, and the
// filter's own checks of the entry (a foreign architecture's, x32's).
var refusedCalls = []refusedCall{
	{name: "io_uring_enter", call: `c.syscall("io_uring_enter", -1, 0, 0, 0, None, 0)`},
	{name: "lsetxattr", call: `c.syscall("lsetxattr", "/nonexistent-sabline", "user.sabline", "", 0, 0)`},
	// The worker itself, signal 0.
	{name: "rt_tgsigqueueinfo", call: `c.syscall("rt_tgsigqueueinfo", c.syscall("getpid").ret, c.syscall("gettid").ret, 0, None)`},
	{name: "reboot", call: `c.syscall("reboot", 0, 0, 0, None)`},
	{name: "swapon", call: `c.syscall("swapon", "/nonexistent-sabline", 0)`},
	{name: "acct", call: `c.syscall("acct", "/nonexistent-sabline")`},
	{name: "pivot_root", call: `c.syscall("pivot_root", "/nonexistent-sabline-a", "/nonexistent-sabline-b")`},
	{name: "fsopen", call: `c.syscall("fsopen", "nonexistent-sabline-fs", 0)`},
	{name: "fsmount", call: `c.syscall("fsmount", -1, 0, 0)`},
	{name: "move_mount", call: `c.syscall("move_mount", -1, "/nonexistent-sabline", -1, "/nonexistent-sabline", 0)`},
	// i386's getuid has sched_yield's number on amd64, which the filter
	// allows: only the check of the architecture refuses it.
	{name: "i386 getuid through int 0x80", call: `c.syscall32(24)`, i386: true},
	{name: "x32 getpid", call: `c.syscall(0x40000000 + 39)`},
}

// callsProgram makes each call of calls and prints, one line each, its
// name, a tab and its errno ("ok" when it succeeded).
func callsProgram(calls []refusedCall) string {
	var b strings.Builder
	b.WriteString("c = ffi.module(\"ctypes\")\n")
	for _, c := range calls {
		fmt.Fprintf(&b, "print(%q + \"\\t\" + (%s.errno or \"ok\"))\n", c.name, c.call)
	}
	return b.String()
}

// callErrnos reads callsProgram's lines.
func callErrnos(stdout string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if name, errno, ok := strings.Cut(line, "\t"); ok {
			out[name] = errno
		}
	}
	return out
}

var _ = Describe("deny-list: the calls the filter alone refuses, on the live kernel", Ordered, cellLabel("deny-list"), func() {
	// made are the calls the program makes: all but those through an
	// entry the kernel does not offer. control is what each met under
	// --no-confine; alone, for each layer applied alone, what each met.
	var (
		made    []refusedCall
		control map[string]string
		alone   map[string]map[string]string
	)

	BeforeAll(func() {
		if goruntime.GOOS != string(confine.Linux) || goruntime.GOARCH != "amd64" {
			Skip("the calls are made through ctypes' raw entries, with the i386 and x32 ones of linux/amd64")
		}
		if !confined() {
			Skip(noConfinement())
		}
		for _, c := range refusedCalls {
			if !c.i386 || i386Entry {
				made = append(made, c)
			}
		}
		s := newScratch()
		prog := s.file("calls.vel", callsProgram(made))

		By("--no-confine: each call fails of its own accord")
		r := s.run("--no-confine", "--allow", "io,ffi:ctypes", prog)
		Expect(r.exit).To(Equal(0), "%s", r)
		control = callErrnos(r.stdout)
		Expect(control).To(HaveLen(len(made)), "%s", r)

		By("each layer alone (knock-out build, --confine strict)")
		alone = map[string]map[string]string{}
		for _, l := range layersAlone {
			r := s.runWith(call{bin: knockout(), args: []string{"--confine", "strict", "--allow", "io,ffi:ctypes", prog},
				env: []string{linux.LayersOnlyEnv + "=" + l.only}})
			Expect(r.exit).To(Equal(0), "%s", r)
			Expect(s.receipt().RunParameters.ConfinementLayers).To(ConsistOf(MatchRegexp(layerPattern(l.layer).String())),
				"%s=%s did not leave the worker %s alone\n%s", linux.LayersOnlyEnv, l.only, l.layer, r)
			alone[l.layer] = callErrnos(r.stdout)
			Expect(alone[l.layer]).To(HaveLen(len(made)), "%s", r)
		}
	})

	for _, c := range refusedCalls {
		It("refuses "+c.name+" with EPERM when seccomp is the only layer, where --no-confine makes it fail of its own accord", func() {
			if c.i386 && !i386Entry {
				Skip(escape.NoI386Entry)
			}
			// A call that checks a capability before its arguments fails
			// with EPERM unconfined when the test is not root: no errno
			// can then tell the filter's refusal apart.
			if control[c.name] == "EPERM" && os.Geteuid() != 0 {
				Skip("not root: " + c.name + " fails with EPERM unconfined, checking a capability first, so no refusal can be told apart")
			}
			Expect(control[c.name]).NotTo(Equal("EPERM"), "%s fails with EPERM unconfined: the control cannot tell the filter's refusal apart", c.name)
			var stoppers []string
			for _, l := range layersAlone {
				if alone[l.layer][c.name] == "EPERM" {
					stoppers = append(stoppers, l.layer)
				}
			}
			Expect(alone[core.LayerSeccomp][c.name]).To(Equal("EPERM"), "seccomp alone lets %s through (%s; unconfined %s)",
				c.name, alone[core.LayerSeccomp][c.name], control[c.name])
			AddReportEntry(layersAloneEntry, fmt.Sprintf("unconfined %s: %s", control[c.name], strings.Join(stoppers, ", ")))
		})
	}
})
