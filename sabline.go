// Package sabline runs Sabline programs from Go: one run at a time (Run),
// many runs through workers started and confined once (Pool), and pools
// made on first use and kept within a bound (PoolRegistry). Every run
// leaves a receipt that says what held it.
//
// A run runs in a worker process that the operating system confines to
// the budget before the program's first statement (Landlock and seccomp
// on Linux), whatever its settings: the zero Options are a confined run.
// Running in the caller's own process is a choice a caller names
// (Options.InProcess): Sabline never confines that process, so such a
// run's level is none, and one that requires full or partial is refused
// (E326).
//
// # Levels
//
// A run that asks for no level (Options.Require "") must be held at the
// level this machine holds its budget at, the limits the language alone
// holds aside, and by each layer that holds it there: where a layer the
// kernel offers fails to install in the worker (a Landlock ruleset the
// kernel refuses, a filter it cannot load), the run is refused before its
// first statement (E326) with its receipt, rather than run held less. Require names the
// least level itself: full or partial, or none to run however little the
// system holds.
//
// The worker is the caller's own binary, started again. A program that
// embeds Sabline therefore hands control over first thing in main:
//
//	func main() {
//		sabline.HandOver() // returns at once unless this process is a worker
//		res, err := sabline.Run(ctx, sabline.File("job.vel"), sabline.Options{
//			Budget: budget.MustParse(dir, "io,fs:read:data"),
//		})
//		...
//	}
//
// A worker started from a program that skips the call fails at once with
// E310 naming it; it never starts workers of its own.
//
// # Receipts
//
// Each run's [Result] carries its [receipt.Receipt]: what was asked, what
// held it (its confinement level and typed gaps), and how it ended. It
// is kept in the receipts directory (Options.Receipts, PoolOptions.Receipts,
// or the user's own by default) before the program's first statement and
// finished however the run ends; [receipt.List] and [receipt.Load] read
// it back.
//
// # Tenants
//
// A host that runs programs for others names the client of each pooled
// run (RunOptions.Tenant, recorded in the receipt) and narrows its budget
// (RunOptions.Budget, within the pool's). To serve them over HTTP or MCP,
// read a tenants file with [github.com/sabline/sabline/tenant.Load] and
// give it to the door ([github.com/sabline/sabline/door.Server.SetTenants]),
// as `sabline serve --tenants` does.
//
// This package is the library's whole way to run: the supervisor, the
// worker and their wire are internal to the module.
package sabline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/job"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/internal/worker"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// HandOver makes this process a worker when the supervisor started it as
// one, and never returns then; otherwise it returns at once. Call it first
// in main, after registering host modules (lang.RegisterModule), before
// anything else.
func HandOver() {
	if run.IsWorker(os.Args) {
		os.Exit(worker.Main(os.Args[2:]))
	}
}

// Program is what a run runs: a .vel file, or source text with a name.
type Program struct {
	// Path is the program's file, or, with Source, the name its
	// positions, digests and receipt carry; its directory is where its
	// loads are read beneath.
	Path   string
	Source []byte
}

// File is the program in the file path.
func File(path string) Program { return Program{Path: path} }

// Source is the program text src, named name.
func Source(name string, src []byte) Program { return Program{Path: name, Source: src} }

// Confine is how much of the budget the operating system is asked to
// hold: core.Mode, the one type of it.
type Confine = core.Mode

// The confinement settings, as the command line's --confine and
// --no-confine give them.
const (
	ConfineDefault = core.ModeDefault // the budget's policy, widened by granted modules
	ConfineStrict  = core.ModeStrict  // the budget alone: granted modules widen nothing
	ConfineOff     = core.ModeOff     // ask the operating system for nothing
)

// Options are a run's settings, as the command line's flags give them.
type Options struct {
	// Budget is what the program may do (--allow). One that grants a host
	// module this binary has not registered is E301 (CheckModules).
	Budget budget.Budget
	Args   []string
	Stdin  io.Reader // nil: no input
	// Stdout and Stderr receive the program's output and Sabline's
	// messages; nil: they are kept in the Result.
	Stdout, Stderr io.Writer
	Timeout        time.Duration // 0: none
	MaxMemoryMB    int           // 0: none
	// InProcess runs the program in the caller's own process, held by
	// the budget's checks alone, which Sabline never confines: the
	// receipt says level none. It takes no timeout and no memory limit
	// (a worker holds those; cancel ctx instead), no required level, and
	// no ConfineStrict (nothing holds a granted host module there).
	// Without it, the run is in a confined worker.
	InProcess bool
	Confine   Confine // "" is ConfineDefault
	// Require refuses a run held below it (E326). "" is the level this
	// machine holds the budget at (confine.Expected): a layer the kernel
	// offers that fails to install refuses the run; none runs it however
	// little is held. An InProcess run takes "" or none.
	Require core.Level
	// Receipts is the receipts directory; "" is the command line's
	// default (receipt.DefaultDir: $SABLINE_RECEIPTS, else the user's
	// state directory), so that every run leaves a receipt a user can
	// find with sabline receipts.
	Receipts string
	Cwd      string // the run's working directory, relative to the caller's; "": the caller's
	// LendCredentials are credential locations the operator lends the run:
	// a grant that names one of them reaches it, where no grant reaches
	// a credential location otherwise (E329).
	LendCredentials []string
	// Durability is how each run's receipt is kept before its result is
	// returned (receipt.Flush, Background or None; "" is Flush): what a
	// power cut just after can lose (docs/library.md, Receipts).
	Durability receipt.Durability
}

// kept is an output a Result keeps for its caller: the first
// wire.MaxPoolOutputBytes, as a pool keeps of a run's, and the rest
// dropped, which the run's messages then say (clippedNote). The program
// is never held up by it.
type kept struct {
	buf     bytes.Buffer
	dropped bool
	n       int64 // every byte written, kept or not
}

func (k *kept) Write(p []byte) (int, error) {
	k.n += int64(len(p))
	if room := wire.MaxPoolOutputBytes - k.buf.Len(); len(p) > room {
		k.dropped = true
		k.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return k.buf.Write(p)
}

// clippedNote says that a run's output kept for its caller was cut at
// its bound (%d), where its receipt does not say how much (StdoutLine).
const clippedNote = "sabline: the program printed more than %d bytes; the rest was dropped\n"

// sayCut writes to w the line that says how much of a run's output its
// caller was given, from its receipt (receipt.Receipt.StdoutLine), else,
// where the receipt does not say (cut), clippedNote.
func sayCut(w io.Writer, rec *receipt.Receipt, cut bool) {
	line := ""
	if rec != nil {
		line = rec.StdoutLine()
	}
	if line != "" {
		fmt.Fprintf(w, "sabline: %s\n", line)
	} else if cut {
		fmt.Fprintf(w, clippedNote, wire.MaxPoolOutputBytes)
	}
}

// keptBound is the most of a run's output its Result keeps (kept), when
// it keeps it; 0 when the caller's own writer takes all of it.
func keptBound(keep bool) int64 {
	if keep {
		return wire.MaxPoolOutputBytes
	}
	return 0
}

// Result is a run that has its receipt, however it ended.
type Result struct {
	Receipt *receipt.Receipt
	Stdout  []byte // the program's output, when Options.Stdout was nil: its first MiB
	Stderr  []byte // Sabline's messages, when Options.Stderr was nil: the first MiB
}

// Err is the run's end as an error: nil when the program ran to its end,
// else a *codes.Error with the outcome's code and message.
func (r *Result) Err() error {
	o := r.Receipt.Outcome
	if o.Status == receipt.StatusOK {
		return nil
	}
	return &codes.Error{Code: o.Code, Msg: o.Message, Pos: o.Position, Stack: o.Stack}
}

// InProcessReason is the confinement reason of a run in the caller's own
// process.
const InProcessReason = "the run was in the caller's own process (Options.InProcess), which " +
	"Sabline never confines; leave InProcess unset to run it in a confined worker"

// Run runs program once and returns its result and receipt. The error is
// nil when the program ran, whether or not it succeeded (Result.Err says);
// it is the refusal (a *codes.Error) when nothing ran, and then the
// result's receipt says so too. Cancelling ctx ends the run as a timeout
// does (E307); a ctx already done when Run is called runs nothing, and is
// that refusal (E307).
func Run(ctx context.Context, program Program, opts Options) (*Result, error) {
	// Absolute, as the worker is given it: a relative one is the
	// caller's working directory's ("" is that directory itself).
	// A caller's working directory that was removed (or cannot be read)
	// is refused below, with a receipt, as every refusal is.
	cwd, cwdErr := filepath.Abs(opts.Cwd)
	if cwdErr == nil {
		opts.Cwd = cwd
	}
	if opts.Confine == "" {
		opts.Confine = ConfineDefault
	}
	if opts.Durability == "" {
		opts.Durability = receipt.Flush
	}
	if opts.Receipts == "" {
		dir, err := receipt.DefaultDir()
		if err != nil { // E317: nothing runs without a place for its receipt
			rec := receipt.NewForSource(program.Path, program.Source, opts.Budget, opts.Args)
			rec.Outcome = receipt.OutcomeOf(err)
			return &Result{Receipt: rec}, err
		}
		opts.Receipts = dir
	}
	res := &Result{}
	var out, errs kept
	keepOut, keepErr := opts.Stdout == nil, opts.Stderr == nil
	if keepOut {
		opts.Stdout = &out
	}
	if keepErr {
		opts.Stderr = &errs
	}
	defer func() {
		if out.dropped {
			sayCut(opts.Stderr, res.Receipt, true)
		}
		if keepOut {
			res.Stdout = out.buf.Bytes()
		}
		if keepErr {
			res.Stderr = errs.buf.Bytes()
		}
	}()
	if opts.Stdin == nil {
		opts.Stdin = strings.NewReader("")
	}
	path := program.Path
	if cwdErr != nil {
		err := codes.Errorf(codes.E301, "the run's working directory: %w: nothing ran", cwdErr)
		res.Receipt = refused(path, program.Source, opts, err)
		return res, err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(opts.Cwd, path)
	}
	if err := checkOptions(opts); err != nil {
		err = optionsRefused(err, optionsDo)
		res.Receipt = refused(path, program.Source, opts, err)
		return res, err
	}
	if ctx.Err() != nil {
		// As a pool's run cancelled before a worker took it: sent to
		// none, and nothing ran (TestRunContextDoneBefore).
		err := codes.Errorf(codes.E307, "the run was cancelled before it started: %v; nothing ran",
			context.Cause(ctx))
		res.Receipt = refused(path, program.Source, opts, err)
		return res, err
	}
	if !opts.InProcess {
		res.Receipt = run.SuperviseContext(ctx, run.Run{
			Program: path, Source: program.Source, Args: opts.Args, Budget: opts.Budget, Cwd: opts.Cwd,
			Confine: opts.Confine, Require: opts.Require, Timeout: opts.Timeout,
			MaxMemoryMB: opts.MaxMemoryMB, Receipts: opts.Receipts,
			Guarded: guardedPaths(opts.Receipts, nil), Lend: opts.LendCredentials,
			Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr, Durability: opts.Durability,
			Undelivered: true, StdoutKept: keptBound(keepOut),
		})
		if _, err := res.Receipt.Stored(); err != nil {
			return res, err
		}
		if o := res.Receipt.Outcome; o.Status != receipt.StatusOK {
			sayOutcome(opts.Stderr, o.Code, o.Message) // as a run in this process says it
		}
		if o := res.Receipt.Outcome; o.Status == receipt.StatusUsage ||
			o.Status == receipt.StatusRefused {
			return res, res.Err()
		}
		return res, nil
	}
	if opts.Require.Rank() > core.None.Rank() {
		err := codes.Errorf(codes.E326, "required level %s: this run would be in the caller's own "+
			"process, at level none (%s); it was refused before its first statement",
			opts.Require, InProcessReason)
		res.Receipt = refused(path, program.Source, opts, err)
		return res, err
	}
	rec, err := inProcess(ctx, path, program.Source, opts)
	res.Receipt = rec
	if err != nil {
		return res, err
	}
	if o := res.Receipt.Outcome; o.Status == receipt.StatusUsage {
		return res, res.Err()
	}
	return res, nil
}

// inProcessLimits refuses a run in the caller's process that sets a limit
// only a worker holds.
const inProcessLimits = "a run in the caller's own process (InProcess) takes no timeout and no " +
	"memory limit: only a worker holds them. Cancel the context for a deadline, or leave " +
	"InProcess unset to run in a confined worker that holds both"

// inProcessStrict refuses a run in the caller's process that asks the
// operating system to hold its granted modules: nothing holds them there.
const inProcessStrict = "a run in the caller's own process (InProcess) is never confined, and " +
	"ConfineStrict asks the operating system to hold the granted host modules to the budget: " +
	"give one or the other (leave InProcess unset to run in a worker that holds them)"

// checkOptions refuses settings that contradict each other, and a budget
// that grants a host module no one registered (E301).
func checkOptions(o Options) error {
	if err := run.CheckConfine(o.Confine, o.Require); err != nil {
		return err
	}
	if o.Timeout < 0 || o.MaxMemoryMB < 0 {
		return codes.Errorf(codes.E301, "Options.Timeout (%v) and Options.MaxMemoryMB (%d) are above "+
			"zero, or zero for none", o.Timeout, o.MaxMemoryMB)
	}
	if o.InProcess && (o.Timeout > 0 || o.MaxMemoryMB > 0) {
		return codes.Errorf(codes.E301, "%s", inProcessLimits)
	}
	if o.InProcess && o.Confine == ConfineStrict {
		return codes.Errorf(codes.E301, "%s", inProcessStrict)
	}
	if _, err := receipt.ParseDurability("Durability", string(o.Durability)); err != nil {
		return err
	}
	if err := run.CheckLend("Options.LendCredentials", o.LendCredentials); err != nil {
		return err
	}
	// As the command line's --allow: a typo would turn the operating
	// system layer off for nothing (TestRunRefusesUnregisteredModules).
	return CheckModules("Options.Budget", o.Budget)
}

// optionsDo is what to do about Options that checkOptions refuses: the
// catalogue's words for E301 name the command line's flags and its
// --help, which a library caller has none of.
const optionsDo = "Fix the field of Options the message names (docs/library.md says what each " +
	"takes). Nothing ran."

// poolOptionsDo is optionsDo for the PoolOptions that NewPool refuses
// (E301): the message names the setting by what it is, a pool's timeout
// say, and here its field.
const poolOptionsDo = "Fix the field of PoolOptions the message names (a pool's workers, " +
	"timeout, memory limit and idle timeout are its Workers, Timeout, MaxMemoryMB and " +
	"IdleTimeout; docs/library.md says what each takes). Nothing ran."

// optionsRefused is err, a refusal of checkOptions (or of NewPool's
// options), with do as what to do when it says nothing of its own.
func optionsRefused(err error, do string) error {
	var e *codes.Error
	if errors.As(err, &e) && e.Do == "" {
		e.Do = do
	}
	return err
}

// refused is the receipt of a run refused before it started, stored in
// the receipts directory.
func refused(path string, src []byte, o Options, err error) *receipt.Receipt {
	rec := unstarted(path, src, o, err)
	store(rec, o)
	return rec
}

// unstarted is the receipt of a run that err kept from starting, not
// stored.
func unstarted(path string, src []byte, o Options, err error) *receipt.Receipt {
	var rec *receipt.Receipt
	if src == nil {
		rec = receipt.New(path, o.Budget, o.Args) // the digest of the file it was asked to run
	} else {
		rec = receipt.NewForSource(path, src, o.Budget, o.Args)
	}
	setParameters(rec, o)
	rec.Outcome = receipt.OutcomeOf(err)
	return rec
}

// setParameters records in rec how the run was asked for.
func setParameters(rec *receipt.Receipt, o Options) *receipt.Receipt {
	rec.Timings.Started = time.Now().UTC()
	rec.RunParameters.Asked(o.Confine, o.Require, o.Timeout, policyDigest(o.Budget, o.Confine))
	if run.CheckLend("", o.LendCredentials) == nil { // else refused for them, and kept by none
		rec.RunParameters.CredentialsLent = o.LendCredentials
	}
	rec.RunParameters.Durability = o.Durability
	return rec
}

// policyDigest is the digest of the OS policy b derives under mode, as the
// receipt records it. The last one reckoned is kept with the items and the
// mode it was reckoned of (the derivation reads nothing else): a host's
// runs mostly share a budget, and the derivation and its JSON cost a run
// in this process some 5 % of its time.
func policyDigest(b budget.Budget, mode core.Mode) string {
	last := lastPolicy.Load()
	if last != nil && last.mode == mode && slices.Equal(last.items, b.Items) {
		return last.digest
	}
	d := core.OSPolicy(b, core.Options{Mode: mode}).SHA256()
	lastPolicy.Store(&policyOf{items: slices.Clone(b.Items), mode: mode, digest: d})
	return d
}

// lastPolicy is the policy digest policyDigest reckoned last.
var lastPolicy atomic.Pointer[policyOf]

// policyOf is an OS policy's digest, with the budget's items and the mode
// it was derived of.
type policyOf struct {
	items  []budget.Item
	mode   core.Mode
	digest string
}

// store keeps the receipt of a run refused before it started in the
// journal of the receipts directory: one write, kept as
// Options.Durability says (see receipt.Store).
func store(rec *receipt.Receipt, o Options) {
	s, err := receipt.OpenStore(o.Receipts)
	if err == nil {
		s.Finish(rec)
		_, err = rec.Stored()
	}
	if err != nil {
		fmt.Fprintln(o.Stderr, "sabline:", err)
	}
}

// inProcess runs the program in this process, under the budget's checks
// alone.
func inProcess(ctx context.Context, path string, src []byte, o Options) (*receipt.Receipt, error) {
	started := time.Now()
	// The store is opened first, making the receipts directory and what
	// holds it: the guard, built after, holds what was made for it as it
	// holds any directory above a guarded location (no new entry), as a
	// pool's guard and a worker's do. Without a store nothing runs, and
	// no receipt can be kept.
	s, err := receipt.OpenStore(o.Receipts)
	if err != nil {
		return unstarted(path, src, o, err), err
	}
	// As a worker's is, built when first consulted: a program that names no
	// file and loads nothing never reads the homes and the mount table.
	g := guard.Later(func() *guard.Set { return run.Guard(guardedPaths(o.Receipts, nil), o.LendCredentials) })
	if err := run.Admit(g, o.Budget); err != nil {
		return refused(path, src, o, err), err
	}
	// The digest is the compiled program's, below; the start is before the
	// compile, not when the parameters were taken.
	rec := setParameters(receipt.NewForSource(path, nil, o.Budget, o.Args), o)
	rec.Timings.Started = started.UTC()
	rec.SetConfinement(core.NotConfined(InProcessReason))
	var unkept error // the skeleton not kept: nothing ran
	cfg := lang.Config{
		Budget: o.Budget,
		Cwd:    o.Cwd,
		Args:   o.Args,
		Stdin:  o.Stdin,
		Stdout: o.Stdout,
		Guard:  g,
		// The caller's own process: its runs are its own.
		KeepCompiled: true,
	}
	ran, err := job.Run(cfg, job.Program{Path: path, Source: src}, job.Hooks{
		Compiled: func(_ *lang.Interp, prog *lang.Compiled) error {
			rec.Program.Files, rec.Program.SHA256 = prog.Order, prog.Order[0].SHA256
			// As in a worker: nothing runs without its skeleton kept first.
			unkept = s.Reserve(rec) // sets what Stored returns
			return unkept
		},
		Running: func(in *lang.Interp) func() {
			cancel := func() {
				in.Stop(fmt.Sprintf("the run was cancelled: %v", context.Cause(ctx)))
			}
			if ctx.Err() != nil {
				// Done before the first statement: stopped here, before
				// it, and not by AfterFunc's goroutine, which could come
				// once statements had run (TestRunContextDoneBefore).
				cancel()
				return nil
			}
			stop := context.AfterFunc(ctx, cancel)
			return func() { stop() }
		},
	})
	if unkept != nil {
		rec.Outcome = receipt.OutcomeOf(unkept)
		return rec, unkept
	}
	if ran.Started {
		rec.Effects = ran.Effects
		// Counted in the process the program ran in, beside any host
		// code it was granted: what it reports, as a worker's would be.
		rec.Reported = &receipt.Reported{
			Fields:    []string{receipt.FieldOutcome, receipt.FieldEffects},
			Testimony: run.Testimony(o.Budget),
		}
	}
	rec.Outcome = receipt.OutcomeOf(err)
	var e *codes.Error
	if errors.As(err, &e) {
		sayOutcome(o.Stderr, e.Code, e.Msg)
	}
	// Its phases, as a worker reports its own: this process ran them,
	// and confined nothing.
	rec.Timings.Worker.CompileMS = receipt.MS(ran.Compile)
	rec.Timings.Worker.RunMS = receipt.MS(ran.Run)
	rec.Timings.WallMS = receipt.MS(time.Since(started))
	if k, ok := o.Stdout.(*kept); ok {
		rec.StdoutCut = receipt.CutStdout(k.n, int64(k.buf.Len()))
	}
	s.Finish(rec)
	_, err = rec.Stored() // E327: it ran, and its receipt was not finished
	if err != nil {
		fmt.Fprintln(o.Stderr, "sabline:", err)
	}
	return rec, err
}

// sayOutcome writes the line that says how a run that did not end well
// ended, its code and message, to a run's Stderr (nothing for no code):
// in a worker, in this process and in a pool alike.
func sayOutcome(w io.Writer, code codes.Code, msg string) {
	if code != "" {
		fmt.Fprintf(w, "sabline: %s: %s\n", code, codes.TerminalSafe(msg))
	}
}

// guardedPaths are the locations no grant reaches, beside the operator's
// credential locations: the receipts directory and more, each made
// absolute (a relative one would be judged from the program's directory).
func guardedPaths(receipts string, more []string) []string {
	var out []string
	for _, p := range append([]string{receipts}, more...) {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		out = append(out, p)
	}
	return out
}

// unregisteredModuleDo is what to do about a grant of a host module no
// one registered.
const unregisteredModuleDo = "Grant a module `sabline modules` lists (check the spelling), or " +
	"register it in the embedding program (lang.RegisterModule). Nothing ran."

// CheckModules refuses (E301) a budget past its bounds (budget.MaxItems,
// budget.MaxBytes), and one that grants a host module this
// binary has not registered: ffi:jsno is a typo, and granting a name the
// confinement table does not list would turn the operating system layer
// off for nothing. what names where the budget came from in the message
// (--allow, allow). The registry is the running binary's, so an embedding
// program's own modules (lang.RegisterModule) count.
func CheckModules(what string, b budget.Budget) error {
	if err := b.Bounded(); err != nil {
		return codes.Errorf(codes.E301, "%s: %w", what, err)
	}
	names := lang.DefaultRegistry.Names()
	for _, it := range b.Items {
		if it.Kind == budget.FFI && it.Module != "" && !slices.Contains(names, it.Module) {
			e := codes.Errorf(codes.E301,
				"%s: %s: no host module %q is registered in this build; the registered ones are %s",
				what, it, it.Module, strings.Join(names, ", "))
			e.Do = unregisteredModuleDo
			return e
		}
	}
	return nil
}
