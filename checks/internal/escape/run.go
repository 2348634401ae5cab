package escape

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
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

// Binaries are the two builds of the sabline command.
type Binaries struct {
	Normal   string // built without tags
	Knockout string // built with -tags sabline_knockout
}

// runTimeout bounds one run; every target ends in milliseconds.
const runTimeout = 30 * time.Second

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
	Victim  string // what became of the victim: "", "alive" or Killed
	// Changed are the scratch paths the run made, changed or removed.
	Changed []string
	// Accepted is how many connections and datagrams the listeners took.
	Accepted int
	Stdout   string
	Stderr   string
}

// Attempt is the run's result in one word: Killed when the victim died
// of it, Went when it went through, else the errno it met, or "" when no
// attempt was made.
func (r Run) Attempt() string {
	switch {
	case r.Victim == Killed:
		return Killed
	case r.Went:
		return Went
	}
	return r.Errno
}

// Execute runs t once in mode m in a scratch world beneath dir, made for
// the run and removed after it. It refuses to run at all while the path
// Missing exists, since raw calls name paths beneath it so as to fail.
func Execute(b Binaries, t Target, m Mode, dir string) (Run, error) {
	if _, err := os.Lstat(Missing); !errors.Is(err, os.ErrNotExist) {
		return Run{}, fmt.Errorf("escape: %s exists (or cannot be looked up: %v): the raw calls that name it would act", Missing, err)
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
	}
	before, err := s.Snapshot()
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
	r.Victim = s.Victim(100 * time.Millisecond)
	after, err := s.Snapshot()
	if err != nil {
		return Run{}, err
	}
	r.Changed = Changed(before, after)
	r.Accepted = s.Accepted()
	return r, nil
}

// Invoke runs the sabline binary bin on program, with the Prelude before
// it, under budget and flags, in s.Work, with $HOME and the receipts
// directory in the scratch world, and returns what it printed, parsed.
// Placeholders in budget and program are expanded.
func (s *Scratch) Invoke(bin, budget string, flags []string, program string) (Run, error) {
	cmd, err := s.Command(bin, budget, flags, program)
	if err != nil {
		return Run{}, err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return Run{}, fmt.Errorf("start %s: %w", bin, err)
	}
	stop := time.AfterFunc(runTimeout, func() { _ = cmd.Process.Kill() }) // the worker dies with it
	err = cmd.Wait()
	if !stop.Stop() {
		return Run{}, fmt.Errorf("%s did not end within %s", bin, runTimeout)
	}
	exit := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		exit = ee.ExitCode()
	case err != nil:
		return Run{}, fmt.Errorf("run %s: %w", bin, err)
	}
	return Parse(stdout.String(), stderr.String(), exit), nil
}

// Command is the command Invoke runs, not started: the program is written
// to s.Work/prog.vel and the placeholders expanded.
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
	args := []string{"--timeout", "20s"}
	if budget != "" {
		args = append(args, "--allow", budget)
	}
	args = append(append(args, flags...), prog)
	cmd := exec.Command(bin, args...)
	cmd.Dir = s.Work
	cmd.Env = append(os.Environ(), "HOME="+s.Home, "SABLINE_RECEIPTS="+filepath.Join(s.Base, "receipts"))
	return cmd, nil
}

var (
	errorLine = regexp.MustCompile(`(?m)^sabline: (E\d{3}): (.*)$`)
	refusal   = regexp.MustCompile(`\((E[A-Z0-9]+)\); refused by: `)
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
			r.Errno = f[1]
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
	{syscall.EPERM, "EPERM"}, {syscall.EACCES, "EACCES"}, {syscall.ENOENT, "ENOENT"}, {syscall.ENOSYS, "ENOSYS"},
	{syscall.EXDEV, "EXDEV"}, {syscall.EINVAL, "EINVAL"}, {syscall.EBADF, "EBADF"}, {syscall.ESRCH, "ESRCH"},
	{syscall.ECONNREFUSED, "ECONNREFUSED"}, {syscall.EPROTONOSUPPORT, "EPROTONOSUPPORT"},
	{syscall.ENAMETOOLONG, "ENAMETOOLONG"}, {syscall.ELOOP, "ELOOP"}, {syscall.ENOTDIR, "ENOTDIR"},
}

// errnoIn names the first errno whose words follow a colon in msg, as Go
// prints a wrapped system error ("fork/exec /bin/sh: operation not
// permitted"); "" for none.
func errnoIn(msg string) string {
	for _, e := range messageErrnos {
		if strings.Contains(msg, ": "+e.errno.Error()) {
			return e.name
		}
	}
	return ""
}

// cannotAttempt matches the messages with which a run says the attempt
// cannot be made on this system at all: ctypes offers raw calls on Linux
// only, names calls from this architecture's table only, and the i386
// entry on linux/amd64 only; off Linux its module has no syscall32.
var cannotAttempt = regexp.MustCompile(`^(ctypes\.syscall: (raw system calls are offered on Linux only|` +
	`no system call table for |no system call "[^"]*" on )|` +
	`ctypes\.syscall32: the i386 entry \(int \$0x80\) is offered on linux/amd64 only|` +
	`module has no \.syscall32 field or method)`)

// Observe says what stopped the attempt of the knock-out build's confined
// run, given the unconfined run of the same target (nil when there is
// none) and the system the runs were made on. When neither run made the
// attempt and the confined run's message says it cannot be made here (a
// raw call this system or architecture does not offer), it is
// Unavailable; when the confined run made no attempt for any other reason
// (a target's own mistake, a crash), Unknown. The kernel stopped it when
// the confined run's result differs from the unconfined one; on Linux the
// errno then names the layer (seccomp answers EPERM, ENOSYS or
// EPROTONOSUPPORT, Landlock EACCES or EXDEV), and a victim alive after a
// call that went through was kept from its signal by Landlock's scope.
func Observe(confined Run, unconfined *Run, goos string) Outcome {
	a := confined.Attempt()
	switch {
	case a == "" && (unconfined == nil || unconfined.Attempt() == "") && cannotAttempt.MatchString(confined.Message):
		return Outcome{StoppedBy: Unavailable}
	case a == "":
		return Outcome{StoppedBy: ByUnknown}
	case unconfined != nil && a == unconfined.Attempt(), a == Went, a == Killed:
		if unconfined != nil && unconfined.Attempt() == Killed && a == Went {
			break // the call went through, and the victim lived: see below
		}
		return Outcome{StoppedBy: ByLanguage, Errno: confined.Errno}
	}
	if goos != "linux" {
		return Outcome{StoppedBy: ByKernel, Errno: confined.Errno}
	}
	switch confined.Errno {
	case "":
		return Outcome{StoppedBy: ByLandlock}
	case "EPERM", "ENOSYS", "EPROTONOSUPPORT":
		return Outcome{StoppedBy: BySeccomp, Errno: confined.Errno}
	case "EACCES", "EXDEV":
		return Outcome{StoppedBy: ByLandlock, Errno: confined.Errno}
	}
	return Outcome{StoppedBy: ByUnknown, Errno: confined.Errno}
}
