package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/brokenpipe"
	"github.com/sabline/sabline/internal/fault"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// runFlags are the flags of a run, shared by eval and audit where they
// apply.
type runFlags struct {
	allow       cmdline.List
	timeout     time.Duration
	maxMemoryMB int
	confine     string
	noConfine   bool
	require     string
	receipts    string
	toolFD      int
	lend        cmdline.List // credential locations lent, paths
	noMemory    bool         // --no-memory-limit
}

// defaultRunMemoryMB is the memory bound of a command-line run, and of
// each program eval grades, when neither --max-memory-mb nor
// --no-memory-limit is given: a program that grows without end (one that
// reads /dev/zero whole, say) stops there, with E308, before the machine
// runs out.
const defaultRunMemoryMB = 1024

// memory is the run's memory bound in megabytes, 0 for none: the one
// --max-memory-mb gives, none with --no-memory-limit, else the default.
// Both at once is E301.
func (f *runFlags) memory() (int, error) {
	switch {
	case f.noMemory && f.maxMemoryMB > 0:
		return 0, codes.Errorf(codes.E301, "--max-memory-mb %d sets a memory bound, and "+
			"--no-memory-limit lifts it: give one or the other", f.maxMemoryMB)
	case f.noMemory:
		return 0, nil
	case f.maxMemoryMB > 0:
		return f.maxMemoryMB, nil
	}
	return defaultRunMemoryMB, nil
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.allow, "allow", "grant budget `items` (repeatable)")
	fs.Var((*cmdline.Duration)(&f.timeout), "timeout", "stop the run after this `duration`")
	fs.Var((*cmdline.Memory)(&f.maxMemoryMB), "max-memory-mb", fmt.Sprintf("stop the run past this "+
		"many `MB`, at least %d (default %d, unless --no-memory-limit)", cmdline.MinMemoryMB,
		defaultRunMemoryMB))
	fs.BoolVar(&f.noMemory, "no-memory-limit", false, "lift the default memory bound")
	fs.StringVar(&f.confine, "confine", "", "strict, the one `mode`: granted modules widen nothing")
	fs.BoolVar(&f.noConfine, "no-confine", false, "ask the operating system for nothing")
	fs.StringVar(&f.require, "require-confinement", "",
		"refuse to run below this `level`: full, partial or none (default: the level this "+
			"machine holds the budget at)")
	fs.StringVar(&f.receipts, "receipts", "", "receipts `directory`")
	fs.Var(&f.lend, "lend-credential",
		"let a grant that names this credential `path` reach it (repeatable)")
}

// mode checks the confinement flags together (cmdline.Mode) and returns
// the run's mode and required level.
func (f *runFlags) mode() (core.Mode, core.Level, error) {
	return cmdline.Mode(f.confine, f.noConfine, f.require)
}

// lent are the --lend-credential paths, absolute against cwd.
func (f *runFlags) lent(cwd string) []string {
	var out []string
	for _, p := range f.lend {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// runFlagSet is the flag set of a run (sabline [run] PROGRAM.vel), and
// where it puts them.
func runFlagSet() (*flag.FlagSet, *runFlags) {
	fs := cmdline.NewFlagSet("sabline")
	f := &runFlags{}
	f.register(fs)
	// A run's --timeout, left out, is no limit (eval's and a replay's
	// keep a bound): its refusal of zero says how to ask for none.
	fs.Lookup("timeout").Value = (*cmdline.Limit)(&f.timeout)
	f.toolFD = -1 // none unless given
	fs.Var((*cmdline.Descriptor)(&f.toolFD), "tool-fd",
		"the `descriptor` of the host's tool channel (docs/tools.md)")
	return fs, f
}

// noConfineWarning is what a run under --no-confine says before it starts.
const noConfineWarning = "sabline: --no-confine: the operating system is asked for nothing; " +
	"the budget is the only boundary"

func runCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A reader of the run's output that goes away (sabline ... | head)
	// fails the relay's next write, not the process: the receipt is
	// finished, and the worker's next write fails as it would have on the
	// pipe.
	brokenpipe.Ignore() // it starts no program but its worker
	fs, f := runFlagSet()
	positional, progArgs, err := cmdline.ParseInterspersed(fs, args)
	// A value a flag refused, on a command line that names its program,
	// is refused below with the rest, and leaves a receipt as they do.
	var bad *cmdline.BadValue
	if err != nil && !(errors.As(err, &bad) && len(positional) == 1) {
		return parseFailed(err, stdout, stderr)
	}
	if len(positional) > 0 {
		if c, ok := nearCommand(positional[0]); ok {
			return cmdline.Report(stderr,
				codes.Errorf(codes.E301,
					"%s is no command, and no program (a program is a .vel file): did you mean sabline %s?",
					positional[0], c), "")
		}
	}
	switch len(positional) {
	case 1:
	case 0:
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "no program to run: give a PROGRAM.vel (sabline help shows the flags)"),
			"")
	default:
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301,
				"want one program to run, got %d: %s (the program's own arguments go after --)",
				len(positional), strings.Join(positional, " ")), "")
	}
	// A working directory removed by the caller (or one it may not
	// read) is refused below, with the code and the receipt of every
	// refusal, not left to a bare message: relative paths, the program's
	// and the grants', have nothing to be made absolute against.
	cwd, cwdErr := os.Getwd()
	r := run.Run{
		Program: positional[0], Args: progArgs, Cwd: cwd,
		Timeout: f.timeout,
		Stdin:   stdin, Stdout: stdout, Stderr: stderr,
	}
	dir := f.receipts
	if dir == "" {
		if dir, err = receipt.DefaultDir(); err != nil {
			return cmdline.Report(stderr, err, "")
		}
	}
	// A command line that cannot be run still leaves a receipt of its
	// refusal: the run that never started is accounted for.
	refuse := func(err error) int {
		rec := receipt.New(absProgram(cwd, r.Program), budget.Budget{}, progArgs)
		// The items as given, which may be no budget: kept to a
		// budget's bound, and past it their beginning and the count of
		// bytes left out (codes.Clip), so that the receipt stays one
		// Load reads however long the command line was.
		rec.Budget = codes.Clip(f.allow.String(), budget.MaxBytes)
		rec.Outcome = receipt.OutcomeOf(err)
		rec.RunParameters.RequireConfinement = r.Require
		rec.Timings.Started = time.Now().UTC()
		path, werr := rec.Write(dir)
		if werr != nil {
			cmdline.Report(stderr, werr, "")
		}
		return cmdline.Report(stderr, err, path)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		// A broad grant never reaches the receipts; the supervisor makes
		// their directory known to the register once the receipt is
		// reserved, so that no run of another Sabline on this machine
		// reaches it either.
		r.Guarded = []string{abs}
	}
	if cwdErr != nil {
		return refuse(workingDirError("", cwdErr))
	}
	if bad != nil {
		return refuse(bad.Err)
	}
	if r.Budget, err = budget.Parse(f.allow, cwd); err != nil {
		return refuse(codes.Errorf(codes.E301, "--allow: %w", err))
	}
	r.Lend = f.lent(cwd)
	if err := run.CheckLend("--lend-credential", r.Lend); err != nil {
		return refuse(err)
	}
	if err := registered(r.Budget); err != nil {
		return refuse(err)
	}
	if r.Confine, r.Require, err = f.mode(); err != nil {
		return refuse(err)
	}
	if r.MaxMemoryMB, err = f.memory(); err != nil {
		return refuse(err)
	}
	if spec := os.Getenv(fault.Env); spec != "" {
		if r.Faults, err = fault.Parse(spec); err != nil {
			return refuse(err)
		}
		fmt.Fprintf(stderr, "sabline: %s is set: the worker will attempt %d operation(s) outside "+
			"the budget before the first statement\n", fault.Env, len(r.Faults))
	}
	if f.toolFD >= 0 && f.toolFD <= 2 {
		// Standard output is where the program prints: a channel there
		// could be forged by print.
		return refuse(codes.Errorf(codes.E301, "--tool-fd %d: the tool channel is a descriptor of "+
			"its own, never standard input, output or error", f.toolFD))
	}
	if f.toolFD > 2 {
		r.Tool = os.NewFile(uintptr(f.toolFD), "tool")
		if _, err := r.Tool.Stat(); err != nil {
			return refuse(codes.Errorf(codes.E301, "--tool-fd %d: not an open descriptor: %w",
				f.toolFD, err))
		}
	}
	if r.Confine == core.ModeOff {
		fmt.Fprintln(stderr, noConfineWarning)
	}
	// The receipt is reserved before the worker starts and finished by
	// Supervise: a run that cannot have one does not run (E317), and a
	// run whose receipt could not be finished says so (E327).
	r.Receipts = dir
	// A command line stopped by its terminal stops its worker, with the
	// receipt saying so.
	r.Signals = true
	rec := run.Supervise(r)
	path, werr := rec.Stored()
	if rec.Outcome.Status != receipt.StatusOK && codes.CodeOf(werr) != codes.E317 {
		cmdline.Report(stderr, &codes.Error{
			Code:  rec.Outcome.Code,
			Msg:   rec.Outcome.Message,
			Pos:   rec.Outcome.Position,
			Stack: rec.Outcome.Stack,
			Do:    rec.Outcome.Do,
		}, path)
	}
	if werr != nil {
		return cmdline.Report(stderr, werr, path)
	}
	return rec.Outcome.ExitStatus
}

// cwdDo is what to do when the working directory cannot be read.
const cwdDo = "Start sabline in a working directory that exists and that you may read: the " +
	"program's path and the grants are made absolute against it. Nothing ran."

// workingDirError is E301 for a working directory that cannot be read
// (err, os.Getwd's: it was removed, say), of the command cmd ("" for a
// run), saying what to do (cwdDo) where the general advice would have the
// caller fix a flag.
func workingDirError(cmd string, err error) *codes.Error {
	if cmd != "" {
		cmd += ": "
	}
	e := codes.Errorf(codes.E301, "%sthe working directory: %w: nothing ran", cmd, err)
	e.Do = cwdDo
	return e
}

func absProgram(cwd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}
