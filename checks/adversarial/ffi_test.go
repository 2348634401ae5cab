package adversarial_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/checks/internal/escape"
)

// strict is the flag that keeps a granted module from widening the
// policy.
var strict = []string{"--confine", "strict"}

// moduleTarget is a granted host module used for what the policy does not
// allow it, and its control: the same module, where the budget does.
type moduleTarget struct {
	budget  string
	flags   []string
	program string
	want    string // the errno the kernel answers, or the code of a refusal of Sabline's
	// code is the code the refusal ends the run with: E319 for the
	// kernel's, when "".
	code string
	// The control may need a budget of its own (a net grant, say); ""
	// keeps the attempt's.
	controlBudget string
	control       string
}

var _ = DescribeTable("a granted module under --confine strict gets the budget's paths and hosts, and no more",
	func(t moduleTarget) {
		landlockOnly()
		s := newScratch("module")
		r := run(s, bins.Normal, t.budget, t.flags, t.program)
		Expect(result(r)).To(Equal(t.want), "%s%s", r.Stdout, r.Stderr)
		code := t.code
		if code == "" {
			code = "E319"
		}
		if r.Code != "" { // a raw call reports its errno on its RESULT line instead
			Expect(r.Code).To(Equal(code), "a host module's call refused ends the run with %s\n%s", code,
				r.Stderr)
		}
		budget := t.controlBudget
		if budget == "" {
			budget = t.budget
		}
		c := run(s, bins.Normal, budget, t.flags, t.control)
		Expect(result(c)).To(Equal(escape.Went), "the control: %s%s", c.Stdout, c.Stderr)
	},
	Entry("pathlib reads inside its fs:read grant, not beside it", moduleTarget{
		budget: "io,ffi:pathlib,fs:read:$GRANT", flags: strict,
		program: "pathlib = ffi.module(\"pathlib\")\npathlib.read_text(\"$OUTSIDE/secret.txt\")\nprint(\"RESULT ok\")\n",
		want:    "EACCES",
		control: "pathlib = ffi.module(\"pathlib\")\npathlib.read_text(\"$GRANT/data.txt\")\nprint(\"RESULT ok\")\n",
	}),
	Entry("pathlib writes only where fs:write is granted", moduleTarget{
		budget: "io,ffi:pathlib,fs:read:$GRANT", flags: strict,
		program:       "pathlib = ffi.module(\"pathlib\")\npathlib.write_text(\"$GRANT/new.txt\", \"x\")\nprint(\"RESULT ok\")\n",
		want:          "EACCES",
		controlBudget: "io,ffi:pathlib,fs:write:$GRANT",
		control:       "pathlib = ffi.module(\"pathlib\")\npathlib.write_text(\"$GRANT/new.txt\", \"x\")\nprint(\"RESULT ok\")\n",
	}),
	Entry("ctypes opens inside its fs:read grant, not beside it", moduleTarget{
		budget: "io,ffi:ctypes,fs:read:$GRANT", flags: strict,
		program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("open", "$OUTSIDE/secret.txt", 0o2000000))  # O_RDONLY|O_CLOEXEC
`,
		want: "EACCES",
		control: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("open", "$GRANT/data.txt", 0o2000000))  # O_RDONLY|O_CLOEXEC
`,
	}),
	Entry("ctypes cannot swap its own granted directory for a link: moving it aside needs its parent", moduleTarget{
		budget: "io,ffi:ctypes,fs:read:$GRANT,fs:write:$GRANT", flags: strict,
		program: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("rename", "$GRANT", "$GRANT.moved"))
`,
		want: "EACCES",
		control: `ctypes = ffi.module("ctypes")
report(ctypes.syscall("rename", "$GRANT/data.txt", "$GRANT/renamed.txt"))
`,
	}),
	Entry("socket connects nowhere with no net grant", moduleTarget{
		budget: "io,ffi:socket", flags: strict,
		program:       "socket = ffi.module(\"socket\")\nsocket.connect(\"127.0.0.1\", $PORT)\nprint(\"RESULT ok\")\n",
		want:          "EPERM",
		controlBudget: "io,ffi:socket,net:127.0.0.1:$PORT",
		control:       "socket = ffi.module(\"socket\")\nsocket.connect(\"127.0.0.1\", $PORT)\nprint(\"RESULT ok\")\n",
	}),
	Entry("socket connects to the granted host and port only: the supervisor makes its connections", moduleTarget{
		budget: "io,ffi:socket,net:127.0.0.1:$PORT", flags: strict,
		program: "socket = ffi.module(\"socket\")\nsocket.connect(\"127.0.0.1\", $PORT2)\nprint(\"RESULT ok\")\n",
		want:    "E302", code: "E302",
		control: "socket = ffi.module(\"socket\")\nsocket.connect(\"127.0.0.1\", $PORT)\nprint(\"RESULT ok\")\n",
	}),
	Entry("os starts no process, while its calls that touch nothing work", moduleTarget{
		budget: "io,ffi:os", flags: strict,
		program: "os = ffi.module(\"os\")\nos.system(\"exit 0\")\nprint(\"RESULT ok\")\n",
		want:    "EPERM",
		control: "os = ffi.module(\"os\")\nprint(\"RESULT ok pid=%d\" % os.getpid())\n",
	}),
)

var _ = DescribeTable("without --confine strict, a granted module widens the policy as the confinement table says",
	func(module string, want core.Widen, program string) {
		landlockOnly()
		w, _ := core.WidensTo(module)
		Expect(w).To(Equal(want), "the table has changed: this entry no longer tests what it says")
		s := newScratch("widened")
		r := run(s, bins.Normal, "io,ffi:"+module, nil, program)
		Expect(result(r)).To(Equal(escape.Went), "%s%s", r.Stdout, r.Stderr)
	},
	Entry("ffi:pathlib widens to any path", "pathlib", core.WidenAnyPath,
		"pathlib = ffi.module(\"pathlib\")\npathlib.read_text(\"$OUTSIDE/secret.txt\")\nprint(\"RESULT ok\")\n"),
	Entry("ffi:socket widens to any host", "socket", core.WidenAnyHost,
		"socket = ffi.module(\"socket\")\nsocket.connect(\"127.0.0.1\", $PORT)\nprint(\"RESULT ok\")\n"),
	Entry("ffi:ctypes widens to nothing enforced", "ctypes", core.WidenNothingEnforced,
		`ctypes = ffi.module("ctypes")
report(ctypes.syscall("open", "$OUTSIDE/secret.txt", 0o2000000))  # O_RDONLY|O_CLOEXEC
`),
)
