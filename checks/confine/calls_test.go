package confinecheck

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/sabline/sabline/confine"
)

// refusedCall is a system call the filter refuses, made by a program
// through ctypes with arguments that fail harmlessly where nothing filters
// it: a missing path, a bad descriptor, a bad magic number, no siginfo.
type refusedCall struct {
	name string // as the program prints it
	call string // the ctypes call that makes it
}

// refusedCalls are the calls an earlier audit found refused only by the
// capability drop or Landlock when the filter let them through, and the
// filter's own checks of the entry (a foreign architecture's, x32's).
var refusedCalls = []refusedCall{
	{"io_uring_enter", `c.syscall("io_uring_enter", -1, 0, 0, 0, None, 0)`},
	{"lsetxattr", `c.syscall("lsetxattr", "/nonexistent-sabline", "user.sabline", "", 0, 0)`},
	{"rt_tgsigqueueinfo", `c.syscall("rt_tgsigqueueinfo", c.syscall("getpid").ret, c.syscall("gettid").ret, 0, None)`}, // the worker itself, signal 0
	{"reboot", `c.syscall("reboot", 0, 0, 0, None)`},
	{"swapon", `c.syscall("swapon", "/nonexistent-sabline", 0)`},
	{"acct", `c.syscall("acct", "/nonexistent-sabline")`},
	{"pivot_root", `c.syscall("pivot_root", "/nonexistent-sabline-a", "/nonexistent-sabline-b")`},
	{"fsopen", `c.syscall("fsopen", "nonexistent-sabline-fs", 0)`},
	{"fsmount", `c.syscall("fsmount", -1, 0, 0)`},
	{"move_mount", `c.syscall("move_mount", -1, "/nonexistent-sabline", -1, "/nonexistent-sabline", 0)`},
	// i386's getuid has sched_yield's number on amd64, which the filter
	// allows: only the check of the architecture refuses it.
	{"i386 getuid through int 0x80", `c.syscall32(24)`},
	{"x32 getpid", `c.syscall(0x40000000 + 39)`},
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

var _ = Describe("deny-list: the calls the filter alone refuses, on the live kernel", cellLabel("deny-list"), func() {
	It("refuses each with EPERM when seccomp is the only layer, where --no-confine makes each fail of its own accord", func() {
		if goruntime.GOOS != string(confine.Linux) || goruntime.GOARCH != "amd64" {
			Skip("the calls are made through ctypes' raw entries, with the i386 and x32 ones of linux/amd64")
		}
		if !confined() {
			Skip(noConfinement())
		}
		s := newScratch()
		prog := s.file("calls.vel", callsProgram(refusedCalls))

		By("--no-confine: each call fails of its own accord, never with EPERM")
		r := s.run("--no-confine", "--allow", "io,ffi:ctypes", prog)
		Expect(r.exit).To(Equal(0), "%s", r)
		control := callErrnos(r.stdout)
		Expect(control).To(HaveLen(len(refusedCalls)), "%s", r)
		// A call that checks a capability before its arguments fails
		// with EPERM unconfined when the test is not root: no errno can
		// then tell the filter's refusal apart, and the call is left out.
		calls := refusedCalls
		if os.Geteuid() != 0 {
			calls = nil
			var left []string
			for _, c := range refusedCalls {
				if control[c.name] == "EPERM" {
					left = append(left, c.name)
					continue
				}
				calls = append(calls, c)
			}
			if len(calls) == 0 {
				Skip("not root: every call fails with EPERM unconfined (" + strings.Join(left, ", ") + "), so no refusal can be told apart")
			}
			if len(left) > 0 {
				AddReportEntry("left out, not root", "these fail with EPERM unconfined, checking a capability first: "+strings.Join(left, ", "))
			}
		}
		for _, c := range calls {
			Expect(control[c.name]).NotTo(Equal("EPERM"), "%s fails with EPERM unconfined: the control cannot tell the filter's refusal apart", c.name)
		}

		By("each layer alone (knock-out build, --confine strict): seccomp refuses every call with EPERM")
		alone := map[string][]string{}
		for _, l := range layersAlone {
			r := s.runWith(call{bin: knockout(), args: []string{"--confine", "strict", "--allow", "io,ffi:ctypes", prog},
				env: []string{confine.LayersOnlyEnv + "=" + l.only}})
			Expect(r.exit).To(Equal(0), "%s", r)
			Expect(s.receipt().RunParameters.ConfinementLayers).To(ConsistOf(MatchRegexp(layerPattern(l.layer).String())),
				"%s=%s did not leave the worker %s alone\n%s", confine.LayersOnlyEnv, l.only, l.layer, r)
			got := callErrnos(r.stdout)
			Expect(got).To(HaveLen(len(refusedCalls)), "%s", r)
			for _, c := range calls {
				if got[c.name] == "EPERM" {
					alone[c.name] = append(alone[c.name], l.layer)
				}
				if l.layer == confine.LayerSeccomp {
					Expect(got[c.name]).To(Equal("EPERM"), "seccomp alone lets %s through (%s; unconfined %s)", c.name, got[c.name], control[c.name])
				}
			}
		}
		var lines []string
		for _, c := range calls {
			lines = append(lines, fmt.Sprintf("%s (unconfined %s): %s", c.name, control[c.name], strings.Join(alone[c.name], ", ")))
		}
		AddReportEntry(layersAloneEntry, "\n    "+strings.Join(lines, "\n    "))
	})
})
