// Package codes is Sabline's catalogue of stable error codes (E3xx):
// what each means, the exit status a run that ends with it has, and
// what to do about it; the Error type that carries a code, a position and
// the call stack; and the generator of docs/errors.md. Every user-facing
// error of the command line, the library and the doors carries one:
//
//	err := codes.Errorf(codes.E301, "--timeout %q: want a duration", v)
//	fmt.Println(codes.CodeOf(err)) // E301
package codes

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Code is a stable error code: E and three digits. Codes are never reused
// for another meaning; docs/errors.md lists them all.
type Code string

// The error codes. Each has an entry in Codes.
const (
	E301 Code = "E301" // malformed command line or budget item
	E302 Code = "E302" // effect not granted by the budget
	E303 Code = "E303" // @N count used up
	E304 Code = "E304" // the program does not compile
	E305 Code = "E305" // the program failed while running
	E306 Code = "E306" // a load() could not be resolved
	E307 Code = "E307" // timeout
	E308 Code = "E308" // memory limit
	E309 Code = "E309" // worker killed by a signal
	E310 Code = "E310" // worker crashed or broke the protocol
	E311 Code = "E311" // malformed SABLINE_FAULT_INJECT
	E312 Code = "E312" // ffi module not registered
	E313 Code = "E313" // tool call got no usable answer
	E314 Code = "E314" // the operating system refused a file effect for its own reasons
	E315 Code = "E315" // a network effect failed
	E316 Code = "E316" // the program file cannot be read
	E317 Code = "E317" // receipts cannot be written or read
	E318 Code = "E318" // a guarded location under a broad grant
	E319 Code = "E319" // the kernel refused an effect
	E326 Code = "E326" // confinement below --require-confinement
	E327 Code = "E327" // the run ran; its receipt could not be finished
	E328 Code = "E328" // a run's budget is wider than its pool's or server's ceiling
	E329 Code = "E329" // a budget item names a location no grant reaches
	E330 Code = "E330" // the run's private temporary directory passed its bound
	E331 Code = "E331" // Sabline's own locations cannot be made known to the register of this machine
	E332 Code = "E332" // a kernel report regressed (sabline report diff)
	E333 Code = "E333" // a kernel report cannot be read
	E334 Code = "E334" // sabline replay: the program is not the one the receipt recorded
	E335 Code = "E335" // the supervisor would not make a connection its grant names
	E336 Code = "E336" // a request's arguments are larger than a door accepts
	E337 Code = "E337" // a receipt asked for is no longer kept here
	E338 Code = "E338" // sabline serve or mcp: the doors' command is missing or another build
)

// CodeInfo documents one code: what it means, the process exit status a
// run that ends with it has, and what to do.
type CodeInfo struct {
	Code  Code
	Title string
	Exit  int
	Do    string
}

// Exit statuses of a run. A worker killed by signal N exits 128+N.
const (
	ExitOK       = 0
	ExitFailed   = 1   // the program failed or was refused an effect
	ExitUsage    = 2   // the command line is wrong; nothing ran
	ExitRefused  = 3   // the run was refused before its first statement (E326)
	ExitReceipt  = 4   // the run ran; its receipt could not be finished (E327)
	ExitTimeout  = 124 // E307
	ExitMemory   = 125 // E308
	ExitCrashed  = 126 // E310
	ExitSignaled = 128 // plus the signal number (E309)
)

// Codes is the catalogue of every code, in order.
var Codes = []CodeInfo{
	{E301, "malformed command line or budget item", ExitUsage,
		"Fix the flag or item the message names; `sabline --help` shows the flags and the grammar. " +
			"Nothing ran."},
	{E302, "an effect the budget does not grant", ExitFailed,
		"If the program should be allowed this, add the item the message names to the budget " +
			"(--allow, Options.Budget). Where it names none, no grant reaches the path as written: a " +
			"way through /proc or /dev/fd (read the run's own streams with io), or a link or .. out " +
			"of the grants (name the file where it lies)."},
	{E303, "an item's @N count is used up", ExitFailed,
		"Raise N on the item the message names, or drop the count."},
	{E304, "the program does not compile", ExitFailed,
		"Fix the error at the position the message gives: a syntax error, or a name used where none is " +
			"defined."},
	{E305, "the program failed while running", ExitFailed,
		"Read the message and the position: the program raised the error, or an operation it " +
			"made failed (a write to a full device or a closed stream, a read that failed), as the " +
			"message says."},
	{E306, "a load() names a file that cannot be read or compiled", ExitFailed,
		"load() paths are relative to the file that loads them; check the path and that file's syntax."},
	{E307, "the run took longer than its timeout, or was cancelled", ExitTimeout,
		"Raise the timeout (--timeout, Options.Timeout), or find out why the program does not finish; " +
			"a cancelled run was stopped by whoever asked for it."},
	{E308, "the run used more memory than its memory limit", ExitMemory,
		"Raise the memory limit (--max-memory-mb, Options.MaxMemoryMB), or make the program use less. " +
			"A run with no limit held (--no-memory-limit) that the machine refused memory ends so " +
			"too: set a limit."},
	{E309, "the worker was killed by a signal", ExitSignaled,
		"Read the message: it names the signal. One from outside the run (Ctrl-C, kill, the " +
			"system's out-of-memory killer) ended it: run it again; a program granted ffi may " +
			"have signalled its own worker."},
	{E310, "the worker crashed or ended without a result", ExitCrashed,
		"Read the message: a bound the program broke (the worker's threads, the size of what it " +
			"handed back) is its own doing, and a place the machine did not give (a directory " +
			"another user made, a pipe) is named there; anything else is a fault in Sabline or in " +
			"a host module: report it, with the receipt where one was kept."},
	{E311, "SABLINE_FAULT_INJECT is malformed", ExitUsage,
		"Write it as OP=TARGET;... with OP read, write, connect, exec or signal (docs/errors.md). " +
			"Nothing ran."},
	{E312, "ffi.module names a module that is not registered", ExitFailed,
		"Use a module `sabline modules` lists, or register it in the embedding program " +
			"(lang.RegisterModule)."},
	{E313, "a tool call got no usable answer on the tool channel", ExitFailed,
		"Whoever runs the program must answer each tool line with one line of JSON."},
	{E314, "the operating system refused a file effect for its own reasons", ExitFailed,
		"The budget allowed it; the message says what the system answered (a missing file, say)."},
	{E315, "a network effect failed", ExitFailed,
		"The budget allowed it; the message says what the network answered."},
	{E316, "the program file cannot be read", ExitUsage,
		"Check the path (a program is a .vel file), or, for a program sent as text, send a shorter one " +
			"(at most 16 MiB)."},
	{E317, "receipts cannot be written or read", ExitUsage,
		"Check --receipts (or SABLINE_RECEIPTS, Options.Receipts) names a directory you can write."},
	{E318, "a guarded location under a broad grant", ExitFailed,
		"A broader grant never reaches a credential location, a dot-entry of a home, Sabline's " +
			"receipts or the kernel's files. Name a dot-entry in a grant of its own " +
			"(fs:read:/home/me/.config/app) if the program needs it; a credential location is reached " +
			"only where the operator lends it with --lend-credential and a grant names it."},
	{E319, "the kernel refused an effect the confined run attempted", ExitFailed,
		"The operating system layer held the run (the message names the layers): either the budget " +
			"lacks a grant the program's host modules need, or something tried to escape."},
	{E326, "the confinement applied is below the required level", ExitRefused,
		"The message gives the level and why; run where the kernel can hold more, narrow the budget, " +
			"or ask for a lower level (--require-confinement partial, or none, which runs it however " +
			"little is held: a run that asks for no level is held, on Linux, to the level this " +
			"machine holds its budget at)."},
	{E327, "the run ran, but its reserved receipt could not be finished", ExitReceipt,
		"The program did run: its receipt file says the run started and was not finished. Free space " +
			"where the receipts live and check the program's effects by hand."},
	{E328, "a run asked for more than the ceiling it runs under", ExitUsage,
		"A pool, or the server in front of one, holds every run to the budget its operator set: ask " +
			"for that budget or a narrower one (the message names the item that is wider, or the guarded " +
			"location the ceiling does not name). Nothing ran."},
	{E329, "a budget item names a location no grant reaches", ExitUsage,
		"Sabline's receipts and tokens, the kernel's files (/proc, /sys, devices) and credential " +
			"locations are outside every budget: grant something else. To hand a program a credential, " +
			"the operator lends it with --lend-credential PATH and grants it. Nothing ran."},
	{E330, "the run's private temporary directory passed its bound", ExitFailed,
		"Something wrote more than the bound (512 MiB, or 10,000 entries) in the run's private " +
			"temporary directory, its TMPDIR: a host module of the run, or a process outside Sabline. No " +
			"other run's grant reaches that directory. Write less there, or grant the program a directory " +
			"of its own for its files."},
	{E331, "Sabline's own locations cannot be made known to the register of this machine", ExitUsage,
		"Every Sabline adds its receipts directory, token file and runs directory to a register " +
			"(/var/tmp/sabline-guarded, %ProgramData%\\sabline\\guarded on Windows, or SABLINE_REGISTER), " +
			"and every run on the machine keeps them out of its grants. The message says why the register " +
			"could not be used: make it as root (install -d -m 1777 -o root DIR), or set SABLINE_REGISTER " +
			"to a directory owned by you or root, mode 1777, that every Sabline on this machine is " +
			"started with; or, when your subdirectory of it (DIR/uUID) is another user's or a link, " +
			"have it removed (as root, rm -r -- DIR/uUID). Nothing ran."},
	{E332, "a kernel report regressed", ExitFailed,
		"`sabline report diff OLD NEW` found NEW worse than OLD: a target OLD's kernel refused that " +
			"NEW's did not, a target OLD has and NEW lacks, or an enforcement cell whose evidence got " +
			"worse; the lines marked REGRESSED name each. Find what changed in the kernel or in the " +
			"confinement before releasing; if the change is meant, say why where the new report is " +
			"committed."},
	{E333, "a kernel report cannot be read", ExitUsage,
		"The message names the file and what is wrong with it. A kernel report is the JSON the escape " +
			"suite writes (tests/confine/kernel-GOOS.json, schema sabline.kernel-report/2, /3 or /4), at " +
			"most 16 MiB and 10,000 targets, of a knock-out build, each stop credited to a layer of its " +
			"system that answers with the errno the attempt met and, where the layers alone were " +
			"measured, that stopped it alone, and agreeing with its witness and control; a target " +
			"made through the i386 entry is unavailable where the report says the kernel offers none."},
	{E334, "the program is not the one the receipt recorded", ExitUsage,
		"`sabline replay` runs again only the bytes its receipt recorded: the program file, or a file " +
			"it loads, changed or is gone since that run (the message names it and both digests). " +
			"Restore it, or run the program as it is now with sabline run, which leaves a receipt of " +
			"its own. Nothing ran."},
	{E335, "the supervisor would not make a connection the budget grants", ExitFailed,
		"A confined run's connections are made by its supervisor, which resolves the name itself: " +
			"a name granted by name reaches public addresses only, none of this machine's own (a private, " +
			"loopback or own address behind it could be a rebinding), and a run makes a bounded number of connections. Grant the " +
			"address itself (net:10.0.0.2:5432) to reach a private one, or connect fewer times."},
	{E336, "a request's arguments are larger than a door accepts", ExitUsage,
		"A server's door takes at most 64 KiB of arguments, and at most 4,096 of them, in one request " +
			"(what a receipt keeps whole): pass more data on the program's standard input (stdin) or in " +
			"a file under the server's import root. The refusal's receipt names the arguments by their " +
			"SHA-256 digest, count and size. Nothing ran."},
	{E337, "the receipt asked for is no longer kept here", ExitUsage,
		"Its journal segment was removed: shipped to the fleet's store (read it there, with " +
			"--receipts-url), or past the retention the operator set (--keep-receipts). The message " +
			"says which, and the oldest receipt still kept. Keep receipts longer with --keep-receipts."},
	{E338, "the doors' command is missing or of another build", ExitUsage,
		"sabline serve and sabline mcp run the sabline-door command, which links the HTTP server " +
			"and the MCP SDK that no other sabline process needs. Build it from the same source " +
			"beside sabline (go build -o DIR/ ./cmd/sabline ./cmd/sabline-door), or put that build on " +
			"PATH; the message says which one was found and what it is."},
}

// Info returns the catalogue entry of c.
func Info(c Code) (CodeInfo, bool) {
	i := sort.Search(len(Codes), func(i int) bool { return Codes[i].Code >= c })
	if i < len(Codes) && Codes[i].Code == c {
		return Codes[i], true
	}
	return CodeInfo{}, false
}

// Error is a user-facing error of a run: a code, a message that says what
// happened, the program position when there is one, and what to do.
type Error struct {
	Code Code
	Msg  string
	Pos  string // file:line:col in the program, or ""
	// Stack is the call stack across the program's files, innermost
	// first, one "file:line:col in FUNCTION" per frame; nil when the
	// error has no frames of its own.
	Stack []string
	Err   error // the underlying error, if any
	// Do, when set, is what to do in this case, in place of the
	// catalogue's words for the code.
	Do string
}

// Error is the position, the code and the message, as the command prints them.
func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Msg
	if e.Pos != "" {
		s = e.Pos + ": " + s
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Hint is what to do: the error's own Do, or the catalogue's.
func (e *Error) Hint() string {
	if e.Do != "" {
		return e.Do
	}
	if do := undefinedHint(e); do != "" {
		return do
	}
	info, _ := Info(e.Code)
	return info.Do
}

// Errorf makes an *Error with a formatted message. A %w verb wraps.
func Errorf(c Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: c, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// CodeOf returns the code of the first *Error in err's chain, or "".
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// undefinedHint is what to do about a compile error (E304, or E306 in a
// loaded file) that is a name with no definition, which the resolver
// reports as "undefined: NAME": it is no syntax error. "" for any other.
func undefinedHint(e *Error) string {
	if e.Code != E304 && e.Code != E306 {
		return ""
	}
	name, ok := strings.CutPrefix(e.Msg, "undefined: ")
	if !ok {
		return ""
	}
	name, _, _ = strings.Cut(name, " ")
	return fmt.Sprintf("%s is not defined where it is used: check its spelling, define it first, or "+
		"load() it from the file that defines it (the effect modules, print, ARGS and declassify are "+
		"always defined).", name)
}

// TerminalSafe returns s with every rune a terminal could take for a
// command escaped: each rune unicode.IsPrint refuses (ESC, CR, LF, BEL,
// DEL, the C1 controls, bidirectional overrides, zero-width and other
// format characters) and each byte that is not UTF-8, written as \n, \r,
// \t, \xNN, \uNNNN or \UNNNNNNNN. The space is kept. Every message of the
// runtime that can quote a program's text (a path, a host, a name, a value,
// an error it raised) is printed through it, so that a program cannot
// write to the operator's terminal except on its own standard output.
func TerminalSafe(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return r == utf8.RuneError || !unicode.IsPrint(r)
	}) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// Bounds of an error as a run records it (Error.Bounded): whatever the
// program did (a refusal made 45,000 calls deep, a fail() of a megabyte),
// the record the worker sends and the receipt the supervisor writes stay
// small.
const (
	// MaxMessageBytes bounds a message; past it, the rest is counted.
	MaxMessageBytes = 8 << 10
	// MaxFrameBytes bounds a position and each frame of a stack.
	MaxFrameBytes = 1 << 10
	// MaxStackFrames bounds a stack: past it, the innermost
	// stackInnermost frames and the outermost, with a line between
	// that counts the calls left out.
	MaxStackFrames = 32
	stackInnermost = 24
)

// Bounded returns a copy of e within the bounds above: its message and
// position clipped, its stack cut (Stack), each byte in them that is not
// UTF-8 written as \xNN, as TerminalSafe writes it (escapedClip). A
// worker's record and a receipt are JSON, whose strings hold only UTF-8,
// and such a byte became U+FFFD there: a write refused at n\xe9/x was
// recorded as refused at n\ufffd/x, the name of another file.
func (e *Error) Bounded() *Error {
	out := *e
	out.Msg = escapedClip(e.Msg, MaxMessageBytes)
	out.Pos = escapedClip(e.Pos, MaxFrameBytes)
	if e.Stack != nil {
		out.Stack = Stack(len(e.Stack), func(i int) string { return e.Stack[i] })
	}
	return &out
}

// escapedClip is Clip of s with each byte that is not UTF-8 written as
// \xNN, writing no more of s than is kept: the note counts the bytes of
// the escaped text left out.
func escapedClip(s string, max int) string {
	if utf8.ValidString(s) {
		return Clip(s, max)
	}
	var b strings.Builder
	n := 0 // the escaped text's length
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			if b.Len() <= max {
				fmt.Fprintf(&b, `\x%02x`, s[i])
			}
			n += len(`\xNN`)
		default:
			if b.Len() <= max {
				b.WriteString(s[i : i+w])
			}
			n += w
		}
		i += w
	}
	return ClipOf(b.String(), n, max)
}

// Stack is the stack of n frames, innermost first, that frame(i) names,
// within the bounds above: every frame when there are at most
// MaxStackFrames, else the innermost and the outermost with a line that
// counts the calls between. frame is called only for the frames kept, so
// a stack 45,000 calls deep costs no more than one of MaxStackFrames.
func Stack(n int, frame func(i int) string) []string {
	keep := func(i int) string { return escapedClip(frame(i), MaxFrameBytes) }
	if n <= MaxStackFrames {
		out := make([]string, n)
		for i := range out {
			out[i] = keep(i)
		}
		return out
	}
	out := make([]string, 0, MaxStackFrames)
	for i := 0; i < stackInnermost; i++ {
		out = append(out, keep(i))
	}
	outermost := MaxStackFrames - stackInnermost - 1
	out = append(out, fmt.Sprintf(stackGap, n-stackInnermost-outermost))
	for i := n - outermost; i < n; i++ {
		out = append(out, keep(i))
	}
	return out
}

// stackGap is the line of a cut stack that counts the calls left out.
const stackGap = "... %d calls not recorded ..."

// IsStackGap reports whether a line of a stack is the one Stack puts in
// place of the calls it left out.
func IsStackGap(line string) bool {
	var n int
	_, err := fmt.Sscanf(line, stackGap, &n)
	return err == nil && fmt.Sprintf(stackGap, n) == line
}

// Clip returns s if it is at most max bytes, else its first bytes, cut on
// a rune's boundary, and a note of how many bytes were left out, max
// bytes in all. max is at least 64.
func Clip(s string, max int) string { return ClipOf(s, len(s), max) }

// ClipOf is Clip of a text of n bytes that head begins (the whole text
// when len(head) == n, else at least its first max bytes), for a reader
// that keeps no more of a long text than it will write.
func ClipOf(head string, n, max int) string {
	if n <= max {
		return head
	}
	// at least the count left out: the note itself is short
	note := fmt.Sprintf("... (%d bytes more)", n)
	cut := max - len(note)
	for cut > 0 && !utf8.RuneStart(head[cut]) {
		cut--
	}
	return head[:cut] + fmt.Sprintf("... (%d bytes more)", n-cut)
}
