package escape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// Mode is one of the three ways a target is run.
type Mode string

// The modes.
const (
	// Normal: the normal build, confined as it always is.
	Normal Mode = "normal"
	// Confined: the knock-out build, whose budget checks all pass,
	// confined.
	Confined Mode = "knockout"
	// Unconfined: the knock-out build with --no-confine: nothing holds
	// the run.
	Unconfined Mode = "knockout-no-confine"
)

// LayerEnv is the variable that asks a knock-out build to apply one
// confinement layer alone: "landlock", "seccomp" or "capabilities". A
// build that honours it lists that one layer in the receipt's
// confinement_layers; the harness reads the receipt to know.
const LayerEnv = linux.LayersOnlyEnv

// Layers are the confinement layers of Linux a run can be held by, as
// LayerEnv names them, each with the prefix of its name in a receipt.
var Layers = []struct{ Name, Receipt string }{
	{"landlock", "landlock"}, {"seccomp", core.LayerSeccomp},
	{"capabilities", core.LayerCapabilities},
}

// alonePrefix begins the name of an Alone mode.
const alonePrefix = "knockout-alone-"

// Alone is the mode that runs the knock-out build, confined, with one
// layer alone: LayerEnv is set to layer.
func Alone(layer string) Mode { return Mode(alonePrefix + layer) }

// ABIEnv is the variable that asks a knock-out build to apply Landlock
// at an older ABI than the kernel's, 1 and up. A build that honours it
// names that ABI in the receipt's confinement_layers (landlock-abi1).
const ABIEnv = linux.LandlockABIEnv

// abiPrefix begins the name of an AtABI mode.
const abiPrefix = "knockout-abi-"

// AtABI is the mode that runs the knock-out build, confined, with
// Landlock at abi (ABIEnv): what a kernel of that ABI holds.
func AtABI(abi int) Mode { return Mode(abiPrefix + strconv.Itoa(abi)) }

// Binaries are the two builds of the sabline command.
type Binaries struct {
	Normal   string // built without tags
	Knockout string // built with -tags sabline_knockout
}

// runTimeout bounds one run on a quiet machine, where every target ends
// in milliseconds; runLimit scales it to the machine's load.
const runTimeout = 30 * time.Second

// runLimit is runTimeout scaled by testkit.Patience, read when a run
// starts.
func runLimit() time.Duration { return testkit.Bound(runTimeout) }

// Run is what one run of a program printed and did.
type Run struct {
	Exit    int    // the command's exit status
	Code    string // the error code it ended with ("E302"); "" when it ended well
	Message string // the message of that error
	Went    bool   // the program printed RESULT ok
	// Errno is the errno the attempt met: from the RESULT line, or from
	// the error the run ended with. "" when it went through, or when no
	// attempt was made.
	Errno string
	// Fields are the RESULT line's key=value words.
	Fields map[string]string
	// Refusal is what the normal build's refusal should name in this run:
	// the target's Language, its placeholders expanded.
	Refusal string
	Victim  string // what became of the victim: "", "alive", Killed or victimEnded
	// Changed is what the run made, changed or removed outside the
	// worker, as Diff prints it: every witness the harness reads.
	Changed []string
	// Witnessed are the lines of Changed about the target's own witness.
	Witnessed []string
	// Layers are the confinement layers the run's receipt says held it.
	Layers []string
	// Accepted is how many connections and datagrams the listeners took.
	Accepted int
	Stdout   string
	Stderr   string
}

// Attempt is the run's result in one word: Killed when the victim died
// of it (victimEnded when it ended by itself, which no expectation
// names), Went when it went through, else the errno it met, or "" when
// no attempt was made.
func (r Run) Attempt() string {
	switch {
	case r.Victim == Killed, r.Victim == victimEnded:
		return r.Victim
	case r.Went:
		return Went
	}
	return r.Errno
}

// Execute runs t once in mode m in a scratch world beneath dir, made for
// the run and removed after it, and reads its witnesses before and after.
// It refuses to run at all while the path Missing exists, since raw calls
// name paths beneath it so as to fail.
func Execute(b Binaries, t Target, m Mode, dir string) (Run, error) {
	if _, err := os.Lstat(Missing); !errors.Is(err, os.ErrNotExist) {
		return Run{}, fmt.Errorf(
			"escape: %s exists (or cannot be looked up: %v): the raw calls that name it would act",
			Missing, err)
	}
	s, err := NewScratch(dir, t.ID)
	if err != nil {
		return Run{}, err
	}
	defer s.Close()
	bin, flags := b.Knockout, append([]string(nil), t.Flags...)
	switch m {
	case Normal:
		bin = b.Normal
	case Unconfined:
		flags = append(flags, "--no-confine")
	default:
		if layer, ok := strings.CutPrefix(string(m), alonePrefix); ok {
			s.Env = append(s.Env, LayerEnv+"="+layer)
		}
		if abi, ok := strings.CutPrefix(string(m), abiPrefix); ok {
			s.Env = append(s.Env, ABIEnv+"="+abi)
		}
	}
	// Everything the placeholders name is made before the first witness.
	if _, err := s.Expand(t.Budget + " " + t.Program + " " + t.Stdin + " " + t.Extra); err != nil {
		return Run{}, err
	}
	if s.Stdin, err = s.Expand(t.Stdin); err != nil {
		return Run{}, err
	}
	if s.Extra, err = s.Expand(t.Extra); err != nil {
		return Run{}, err
	}
	if t.Witness == WitnessPriority {
		if err := s.watchPriority(); err != nil {
			return Run{}, err
		}
	}
	before, err := s.Witness()
	if err != nil {
		return Run{}, err
	}
	r, err := s.Invoke(bin, t.Budget, flags, t.Program)
	if err != nil {
		return Run{}, fmt.Errorf("escape: %s (%s): %w", t.ID, m, err)
	}
	if r.Refusal, err = s.Expand(t.Language); err != nil {
		return Run{}, err
	}
	r.Victim = s.Victim()
	after, err := s.Witness()
	if err != nil {
		return Run{}, err
	}
	if runs, err := receipt.List(s.Receipts()); err == nil && len(runs) == 1 {
		r.Layers = runs[0].RunParameters.ConfinementLayers
	}
	r.Changed = Diff(before, after)
	r.Witnessed = OfKind(r.Changed, t.Witness)
	r.Accepted = s.Accepted()
	return r, nil
}

// ExtraFD is the descriptor a Target's Extra file is given to the sabline
// command as: far above the descriptors the worker opens itself.
const ExtraFD = 60

// strayGrace is how long Invoke waits on a quiet machine, once the
// sabline command has exited, for the last holder of its output to close
// it; scaled by testkit.Patience when it is waited.
const strayGrace = 2 * time.Second

// Invoke runs the sabline binary bin on program, with the Prelude before
// it, under budget and flags, in s.Work, with $HOME and the receipts
// directory in the scratch world, and returns what it printed, parsed.
// Placeholders in budget and program are expanded.
//
// The command runs in a process group of its own, killed whole when the
// run times out and when it ends. Its output goes to pipes Invoke reads
// itself: a stray descendant still holding them strayGrace after the
// command exited (a worker's child that left its group, say) is killed,
// with its process group, and the pipes are closed, so that no run waits
// on a process it did not end.
func (s *Scratch) Invoke(bin, budget string, flags []string, program string) (Run, error) {
	cmd, err := s.Command(bin, budget, flags, program)
	if err != nil {
		return Run{}, err
	}
	stdout, err := newCapture()
	if err != nil {
		return Run{}, err
	}
	stderr, err := newCapture()
	if err != nil {
		stdout.close()
		return Run{}, err
	}
	cmd.Stdout, cmd.Stderr = stdout.w, stderr.w
	grace, limit := testkit.Bound(strayGrace), runLimit()
	cmd.WaitDelay = grace
	ownGroup(cmd)
	err = cmd.Start()
	stdout.w.Close() // the command holds its own copies now
	stderr.w.Close()
	if err != nil {
		stdout.close()
		stderr.close()
		return Run{}, fmt.Errorf("start %s: %w", bin, err)
	}
	// The worker dies with the supervisor,
	stop := time.AfterFunc(limit, func() { killGroup(cmd) })
	// and whatever stayed in the command's group.
	err = waitGroup(cmd)
	timedOut := !stop.Stop()
	if !stdout.done(grace) || !stderr.done(grace) {
		// Killed, the holders close the pipes, which then meet their end
		// with what is in them read whole: a machine too loaded to read
		// them within grace loses none of the run's output.
		killHolders(stdout.ino, stderr.ino)
		stdout.done(limit)
		stderr.done(limit)
	}
	out, errOut := stdout.close(), stderr.close()
	if timedOut {
		return Run{}, fmt.Errorf("%s did not end within %s", bin, limit)
	}
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		return Run{}, fmt.Errorf("run %s: %w", bin, err)
	}
	return Parse(out, errOut, exit), nil
}

// capture is a pipe whose read end a goroutine drains into a buffer.
type capture struct {
	r, w *os.File
	ino  uint64 // the pipe's inode, by which a holder is found
	buf  bytes.Buffer
	end  chan struct{} // closed when the read end met EOF or was closed
}

func newCapture() (*capture, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("output pipe: %w", err)
	}
	c := &capture{r: r, w: w, ino: inodeOf(r), end: make(chan struct{})}
	go func() { _, _ = io.Copy(&c.buf, r); close(c.end) }()
	return c, nil
}

// done reports whether the pipe met EOF within grace: every holder of
// its write end closed it.
func (c *capture) done(grace time.Duration) bool {
	select {
	case <-c.end:
		return true
	case <-time.After(grace):
		return false
	}
}

// close stops reading, at once if the pipe is still held, and returns
// what was read.
func (c *capture) close() string {
	_ = c.w.Close() // closed already unless the command never started
	_ = c.r.SetReadDeadline(time.Now())
	<-c.end
	_ = c.r.Close()
	return c.buf.String()
}

// Command is the command Invoke runs, not started: the program is written
// to s.Work/prog.vel and the placeholders expanded. When s.Stdin names a
// file, the command's standard input is that file, opened for reading, a
// descriptor the worker inherits; otherwise it reads from nothing. When
// s.Extra names a file, the command gets it as descriptor ExtraFD, opened
// for reading and writing, as a shell's "9<>file" would give it.
func (s *Scratch) Command(bin, budget string, flags []string, program string) (*exec.Cmd, error) {
	budget, err := s.Expand(budget)
	if err != nil {
		return nil, err
	}
	program, err = s.Expand(Prelude + program)
	if err != nil {
		return nil, err
	}
	prog := filepath.Join(s.Work, "prog.vel")
	if err := os.WriteFile(prog, []byte(program), 0o644); err != nil {
		return nil, fmt.Errorf("write the program: %w", err)
	}
	// The run's own timeout comes before Invoke's bound, so that a run
	// that hangs still ends with its receipt.
	args := []string{"--timeout", (runLimit() * 2 / 3).Round(time.Second).String()}
	if budget != "" {
		args = append(args, "--allow", budget)
	}
	args = append(append(args, flags...), prog)
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.Work
	// The runs' temporary directories are made in the user's cache
	// directory, which would be in the witnessed home: it is one of the
	// scratch world's own, outside what the witness watches.
	cmd.Env = Environ("HOME="+s.Home, "XDG_CACHE_HOME="+filepath.Join(s.Base, "cache"),
		"SABLINE_RECEIPTS="+s.Receipts())
	cmd.Env = append(cmd.Env, s.Env...)
	if s.Stdin != "" {
		f, err := os.Open(s.Stdin)
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		s.closers = append(s.closers, f)
		cmd.Stdin = f
	}
	if s.Extra != "" {
		f, err := os.OpenFile(s.Extra, os.O_RDWR, 0)
		if err != nil {
			return nil, fmt.Errorf("descriptor %d: %w", ExtraFD, err)
		}
		s.closers = append(s.closers, f)
		cmd.ExtraFiles = make([]*os.File, ExtraFD-2) // nil: closed in the command
		cmd.ExtraFiles[ExtraFD-3] = f
	}
	return cmd, nil
}

// ownPrefix begins the name of every variable of Sabline's own.
const ownPrefix = "SABLINE_"

// passedOn are the variables of Sabline's own that a run inherits from
// the harness's environment: the register of Sabline stores that
// testkit.RunApart gives the tests and every process they start.
var passedOn = []string{guard.RegisterEnv}

// Environ is this process's environment as the sabline command of a run
// inherits it, then set: of the variables of Sabline's own (SABLINE_...),
// only those passedOn names. Another, left set in the shell that runs the
// checks (SABLINE_LAYERS_ONLY, SABLINE_FAULT_INJECT, SABLINE_CREDENTIALS),
// would change what the runs do, unseen by go test, which keys a result it
// keeps on the variables the test itself reads: with SABLINE_LAYERS_ONLY
// set, a fresh run failed while go test answered ok from its cache. A
// run's layers, faults and guarded locations are the harness's to set.
func Environ(set ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, ownPrefix) || slices.Contains(passedOn, name) {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

var (
	errorLine = regexp.MustCompile(`(?m)^sabline: (E\d{3}): (.*)$`)
	refusal   = regexp.MustCompile(`\(([A-Z][A-Z0-9_]+|errno \d+)\); refused by: `)
)

// Parse reads what a run printed: the RESULT line on standard output
// ("RESULT ok k=v ..." or "RESULT errno=NAME k=v ..."), and the error
// report on standard error ("sabline: E319: ...").
func Parse(stdout, stderr string, exit int) Run {
	r := Run{Exit: exit, Fields: map[string]string{}, Stdout: stdout, Stderr: stderr}
	for _, line := range strings.Split(stdout, "\n") {
		words := strings.Fields(line)
		if len(words) < 2 || words[0] != "RESULT" {
			continue
		}
		r.Went, r.Errno = words[1] == Went, strings.TrimPrefix(words[1], "errno=")
		if r.Went {
			r.Errno = ""
		}
		for _, w := range words[2:] {
			if k, v, ok := strings.Cut(w, "="); ok {
				r.Fields[k] = v
			}
		}
	}
	if m := errorLine.FindStringSubmatch(stderr); m != nil {
		r.Code, r.Message = m[1], m[2]
		if f := refusal.FindStringSubmatch(r.Message); f != nil {
			r.Errno = errnoName(f[1])
		} else if r.Errno == "" {
			r.Errno = errnoIn(r.Message)
		}
	}
	return r
}

// messageErrnos are the errnos a host module's error may carry, in the
// words the system gives them ("operation not permitted").
var messageErrnos = []struct {
	errno syscall.Errno
	name  string
}{
	{syscall.EPERM, "EPERM"}, {syscall.EACCES, "EACCES"}, {syscall.ENOENT, "ENOENT"},
	{syscall.ENOSYS, "ENOSYS"}, {syscall.EXDEV, "EXDEV"}, {syscall.EINVAL, "EINVAL"},
	{syscall.EBADF, "EBADF"}, {syscall.ESRCH, "ESRCH"},
	{syscall.ECONNREFUSED, "ECONNREFUSED"}, {syscall.EPROTONOSUPPORT, "EPROTONOSUPPORT"},
	{syscall.ENAMETOOLONG, "ENAMETOOLONG"}, {syscall.ELOOP, "ELOOP"}, {syscall.ENOTDIR, "ENOTDIR"},
}

// errnoIn names the first errno whose words follow a colon in msg, as Go
// prints a wrapped system error ("fork/exec /bin/sh: operation not
// permitted"); on Windows, the errors of confine.Refusals too, in the
// words the system gives them ("Access is denied."); "" for none.
func errnoIn(msg string) string {
	for _, e := range messageErrnos {
		if strings.Contains(msg, ": "+e.errno.Error()) {
			return e.name
		}
	}
	if goruntime.GOOS == string(confine.Windows) {
		for _, r := range confine.Refusals() {
			if r.System == confine.Windows && strings.Contains(msg, ": "+syscall.Errno(r.Code).Error()) {
				return r.Errno
			}
		}
	}
	return ""
}

// cannotAttempt matches the messages with which a run says the attempt
// cannot be made on this system at all: ctypes offers raw calls on Linux
// only, names calls from this architecture's table only, and the i386
// entry on linux/amd64 only, where the kernel has one; off Linux its
// module has no syscall32.
var cannotAttempt = regexp.MustCompile(
	`^(ctypes\.syscall: (raw system calls are offered on Linux only|` +
		`no system call table for |no system call "[^"]*" on )|` +
		`ctypes\.syscall32: the i386 entry \(int \$0x80\) is offered on linux/amd64 only|` +
		regexp.QuoteMeta(noI386Entry) + `|` +
		`module has no \.syscall32 field or method)`,
)

// Observe names what stopped an attempt, from its confined and
// unconfined runs (nil when t has no control) on the knock-out build.
//
// A target with a witness is judged by it: the attempt went through when
// the confined run changed the witness, whatever errno it met (a call can
// fail after its effect), and was stopped only when the witness stayed
// as it was while the unconfined run changed it; a witness neither run
// changed tells nothing, and the outcome is unknown. A target without one
// is judged by what the run printed: it was stopped when its result
// differs from the unconfined one; where the control made no attempt (it
// timed out, or failed before its first statement), the outcome is
// unknown, but for an attempt that went through, which no layer stopped
// whatever its control did.
//
// Where the attempt was stopped, the errno names the layer, as
// confine.RefusedBy says for the system (on Linux seccomp answers EPERM,
// or ENOSYS, Landlock EACCES or EXDEV; on macOS the
// profile EPERM), and on Linux a victim unchanged after a call that went through was kept
// from its signal by Landlock's scope.
func Observe(t Target, confined Run, unconfined *Run, goos string) Outcome {
	a := confined.Attempt()
	if a == "" && (unconfined == nil || unconfined.Attempt() == "") &&
		cannotAttempt.MatchString(confined.Message) {
		return Outcome{StoppedBy: Unavailable}
	}
	if t.Witness == "" {
		switch {
		case a == "":
			return Outcome{StoppedBy: ByUnknown}
		case a == Went, a == Killed:
			// The attempt went through: no layer stopped it, whatever the
			// control did.
			return Outcome{StoppedBy: ByLanguage, Errno: confined.Errno}
		case unconfined != nil && unconfined.Attempt() == "":
			// The control made no attempt (it timed out, or failed before
			// its first statement): there is no answer to differ from, and
			// the confined errno alone shows nothing of what stopped it.
			return Outcome{StoppedBy: ByUnknown, Errno: confined.Errno}
		case unconfined != nil && a == unconfined.Attempt():
			return Outcome{StoppedBy: ByLanguage, Errno: confined.Errno}
		}
		return layer(confined.Errno, goos, false)
	}
	switch {
	case len(confined.Witnessed) > 0:
		return Outcome{StoppedBy: ByLanguage, Errno: confined.Errno}
	case unconfined == nil || len(unconfined.Witnessed) == 0 || a == "":
		return Outcome{StoppedBy: ByUnknown, Errno: confined.Errno}
	}
	return layer(confined.Errno, goos, t.Witness == WitnessVictim)
}

// layer names the layer that stopped an attempt by the errno it met, as
// confine.RefusedBy gives it for the system goos names. signal is whether
// the attempt was a signal, which Landlock's scope keeps from its victim
// while the call itself goes through.
func layer(errno, goos string, signal bool) Outcome {
	sys, _ := confine.SystemOf(goos)
	if errno == "" && signal && sys == confine.Linux {
		return Outcome{StoppedBy: ByLandlock}
	}
	if l := confine.RefusedBy(sys, errno); l != "" {
		return Outcome{StoppedBy: l, Errno: errno}
	}
	return Outcome{StoppedBy: ByUnknown, Errno: errno}
}

// errnoName is the name a run's message gives an errno, with a Windows
// error the runtime prints as a number ("errno 5") named as
// confine.Refusals names it (ERROR_ACCESS_DENIED).
func errnoName(s string) string {
	if n, ok := strings.CutPrefix(s, "errno "); ok {
		if code, err := strconv.ParseUint(n, 10, 32); err == nil {
			if name, ok := confine.WindowsErrnoName(uint32(code)); ok {
				return name
			}
		}
	}
	return s
}
