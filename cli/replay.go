package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/brokenpipe"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// replayChangedDo is what to do about a program that is not the one its
// receipt recorded.
const replayChangedDo = "Restore the file the message names to the bytes the run had, or run " +
	"the program as it is now with sabline run. Nothing ran."

// replayWiderDo is what to do about a replay flag that widens the
// receipt's budget or limits.
const replayWiderDo = "A replay runs under its receipt's budget and limits, or narrower ones: " +
	"drop the flag the message names, or give a value within the receipt's (sabline receipts " +
	"show RUN-ID prints them). Nothing ran."

// replayFilesTestimony says why the files a run loaded, as its receipt
// names them, are not checked: what ran the program reported them, and
// could have named any file.
const replayFilesTestimony = "receipt of run %s names the files its program loaded as what ran " +
	"the program reported, which could have forged them (%s): replay reads none of them"

// replayTestimonyDo is what to do about a run whose loaded files are
// testimony.
const replayTestimonyDo = "Run the program again by its path (sabline PROGRAM.vel), with the " +
	"budget it needs; nothing ran."

// replayNoDigest says why a receipt without a digest of its program cannot
// be replayed.
const replayNoDigest = "receipt of run %s records no digest of its program %s (the program was " +
	"never read, or was sent as text to a server): there are no bytes to check it against"

// replayForeignDo is what to do about a receipt file named by its path
// that asks for grants the command line does not name.
const replayForeignDo = "A receipt file named by its path is its author's word, not yours: a " +
	"replay of it grants only what you name. Read the file, then give --allow with the items " +
	"you grant, within its budget, and --lend-credential for each credential you lend; or " +
	"replay a run of your own by its run id. Nothing ran."

// replayNotReceiptDo is what to do about a RECEIPT that names no receipt.
const replayNotReceiptDo = "Give a run id (sabline receipts list prints them), a prefix of " +
	"one, last, or a receipt file Sabline wrote. Nothing ran."

// replayValuesDo is what to do about a receipt whose run parameters hold
// values no Sabline writes.
const replayValuesDo = "The receipt was edited or made by hand: replay a receipt of your own " +
	"(sabline receipts list), or run the program with sabline run and the flags you mean. " +
	"Nothing ran."

// replayRelative says why a receipt that names its program by a relative
// path cannot be replayed: no Sabline writes one, and it would name a
// file of wherever the replay runs.
const replayRelative = "receipt of run %s names its program by the relative path %s, which no " +
	"Sabline writes: there is no file to check its digest against"

// replayFlagSet is the flags of sabline replay: a run's but --tool-fd
// (a replay has no tool channel), each of which may narrow the receipt's
// run and never widen it.
func replayFlagSet() (*flag.FlagSet, *runFlags) {
	fs := cmdline.NewFlagSet("replay")
	f := &runFlags{}
	f.register(fs)
	for name, use := range replayUsage {
		fs.Lookup(name).Usage = use
	}
	return fs, f
}

// replayUsage is the help of the flags a replay reads otherwise than a
// run: each narrows what the receipt recorded, which is its default (a
// run's own default, 1024 MB, only where the receipt records no memory
// bound).
var replayUsage = map[string]string{
	"allow": "narrow the receipt's budget to these `items` (repeatable); a receipt file " +
		"named by its path grants only these",
	"timeout": "stop the run after this `duration`, no longer than the receipt's " +
		"(default: the receipt's)",
	"max-memory-mb": fmt.Sprintf("stop the run past this many `MB`, at least %d and no more "+
		"than the receipt's (default: the receipt's, or %d where it records none)",
		cmdline.MinMemoryMB, defaultRunMemoryMB),
	"no-memory-limit": "lift the memory bound, where the receipt records none",
	"confine": "strict, the one `mode`: granted modules widen nothing (default: the " +
		"receipt's)",
	"no-confine": "ask the operating system for nothing, where the receipt's run asked " +
		"for nothing",
	"require-confinement": "refuse to run below this `level`: full, partial or none, no " +
		"lower than the receipt's (default: the receipt's)",
	"lend-credential": "lend again this credential `path`, one the receipt's run was lent " +
		"(repeatable)",
}

// replayCmd: sabline replay RECEIPT [--receipts DIR] [the flags of a run
// but --tool-fd]. RECEIPT is a receipt file, or a run id, a prefix of
// one or last, as receipts show takes them, read in the receipts
// directory. The receipt's program runs again, with its arguments, under
// its budget, timeout, memory bound, confinement and lent credentials;
// a flag may narrow these and never widen them (E328). A program whose
// bytes, or whose loads' bytes, are not those the receipt recorded is
// refused (E334). A refused replay runs nothing and leaves no receipt;
// one that runs leaves its own, in the same directory, and prints the
// receipts diff of the two runs, then what differs in how they were run
// and how they ended. The exit status is the replayed run's, but 1 for a
// run that ended well at a level below the original's.
func replayCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	brokenpipe.Ignore() // as a run: its receipt is finished
	fs, f := replayFlagSet()
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	if len(rest) > 0 {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "replay: the program's arguments are the "+
			"receipt's; got %s after --", strings.Join(rest, " ")), "")
	}
	if len(positional) != 1 {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "replay: want one RECEIPT (a receipt file, a "+
			"run id, a prefix of one, or %s), got %d", receipt.LastRun, len(positional)), "")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return cmdline.Report(stderr, workingDirError("replay", err), "")
	}
	dir := f.receipts
	if dir == "" {
		if dir, err = receipt.DefaultDir(); err != nil {
			return cmdline.Report(stderr, err, "")
		}
	}
	orig, own, err := findReceipt(dir, positional[0])
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	// A refused replay has no receipt of its own: nothing ran.
	r, err := replayOf(orig, f, cwd, own)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	r.Stdin, r.Stdout, r.Stderr = stdin, stdout, stderr
	r.Receipts, r.Signals = dir, true
	if abs, err := filepath.Abs(dir); err == nil {
		r.Guarded = []string{abs} // a broad grant never reaches the receipts
	}
	// What the replay takes from the receipt, said before the program
	// runs: the arguments too, which a receipt file's author chose.
	fmt.Fprintf(stderr, "sabline: replaying run %s: %s %s under %q, timeout %s, memory %s, "+
		"credentials lent %s\n", terminalSafe(orig.RunID), terminalSafe(r.Program),
		terminalSafe(codes.Clip(fmt.Sprintf("%q", r.Args), maxArgsShown)),
		terminalSafe(r.Budget.String()), timeoutText(r.Timeout.Milliseconds()),
		limitText(int64(r.MaxMemoryMB), " MB"), terminalSafe(listOrNone(r.Lend)))
	if r.Confine == core.ModeOff {
		fmt.Fprintln(stderr, noConfineWarning)
	}
	rec := run.Supervise(r)
	path, werr := rec.Stored()
	if rec.Outcome.Status != receipt.StatusOK && codes.CodeOf(werr) != codes.E317 {
		cmdline.Report(stderr, &codes.Error{Code: rec.Outcome.Code, Msg: rec.Outcome.Message,
			Pos: rec.Outcome.Position, Stack: rec.Outcome.Stack}, path)
	}
	if werr != nil {
		return cmdline.Report(stderr, werr, path)
	}
	weaker := printReplayDiff(stdout, orig, receipt.StoredReceipt{Path: path, Receipt: rec})
	if rec.Outcome.ExitStatus == codes.ExitOK && weaker {
		return codes.ExitFailed
	}
	return rec.Outcome.ExitStatus
}

// maxArgsShown bounds the arguments the replay's first line shows, as
// Go quotes them; past it, their beginning and the count left out.
const maxArgsShown = 1024

// replayOf is the run a replay of orig asks for (replayRun), once its
// program is checked (sameProgram): the run compiles the program's bytes
// the check read, never the file read again, which may have changed
// between the two reads. own says orig is a receipt of the operator's
// receipts directory, found there by its run id.
func replayOf(orig receipt.StoredReceipt, f *runFlags, cwd string, own bool) (run.Run, error) {
	src, err := sameProgram(orig)
	if err != nil {
		return run.Run{}, err
	}
	r, err := replayRun(orig.Receipt, f, cwd, own)
	if err != nil {
		return run.Run{}, err
	}
	r.Source = src
	return r, nil
}

// findReceipt reads the receipt ref names: a run id, a prefix of one or
// receipt.LastRun, found in dir as receipts show finds it (receipt.Find);
// anything else is the path of a receipt file. own reports whether the
// receipt is dir's, found there by its run id: a file named by its path
// is anyone's to have written, wherever it lies (where it lies, judged
// after the read, could be a directory swapped for a link meanwhile).
func findReceipt(dir, ref string) (rec receipt.StoredReceipt, own bool, err error) {
	if ref == receipt.LastRun || receipt.ValidRunID(ref) {
		rec, err = receipt.Find(dir, ref)
		return rec, true, err
	}
	loaded, err := receipt.Load(ref)
	if err != nil {
		if e := (*codes.Error)(nil); errors.As(err, &e) && e.Code == codes.E317 {
			e.Do = replayNotReceiptDo // not the receipts directory's fault
		}
		return receipt.StoredReceipt{}, false, err
	}
	return receipt.StoredReceipt{Path: ref, Receipt: loaded}, false, nil
}

// sameProgram checks that the program orig records, and every file it
// recorded the program loading, hold the bytes they held in that run:
// E334 naming the first that does not, or that cannot be read. It
// returns the program's bytes as it read them.
func sameProgram(orig receipt.StoredReceipt) ([]byte, error) {
	p := orig.Program
	if p.SHA256 == "" || !filepath.IsAbs(p.Path) {
		e := codes.Errorf(codes.E334, replayNoDigest, orig.RunID, p.Path)
		if p.SHA256 != "" {
			e = codes.Errorf(codes.E334, replayRelative, orig.RunID, p.Path)
		}
		e.Do = replayTestimonyDo // no file to restore: the program is run by its path
		return nil, e
	}
	files := []program.FileDigest{{Path: p.Path, SHA256: p.SHA256}}
	for _, fd := range p.Files {
		if fd.Path != p.Path {
			files = append(files, fd)
		}
	}
	if t := orig.TestimonyOf(receipt.FieldFiles); len(files) > 1 && t != "" {
		// Not one of them is read: a path the worker chose would be read
		// as the operator, and its digest, or its absence, printed.
		e := codes.Errorf(codes.E334, replayFilesTestimony, orig.RunID, t)
		e.Do = replayTestimonyDo
		return nil, e
	}
	var src []byte
	for i, fd := range files {
		data, err := program.ReadFile(fd.Path) // as the supervisor reads a program
		sum := sha256.Sum256(data)
		now := hex.EncodeToString(sum[:])
		if err == nil && now == fd.SHA256 {
			if i == 0 {
				src = append([]byte{}, data...) // never nil: nil Source reads the file again
			}
			continue
		}
		var e *codes.Error
		if err != nil {
			e = codes.Errorf(codes.E334, "%s, which run %s ran, cannot be read now: %w", fd.Path,
				orig.RunID, err)
		} else {
			e = codes.Errorf(codes.E334, "%s changed since run %s: its sha256 is %s, the receipt "+
				"recorded %s", fd.Path, orig.RunID, now, fd.SHA256)
		}
		e.Do = replayChangedDo
		return nil, e
	}
	return src, nil
}

// replayRun is the run a replay of rec asks for: rec's program,
// arguments, budget, timeout, memory bound, confinement and lent
// credentials, each narrowed where f gives a narrower one. A flag that
// would widen one is E328 naming it; flags that contradict each other
// are E301, as in a run; run parameters no Sabline writes are E317
// (replayValues). A receipt that records no memory bound replays under
// a run's default one, unless f lifts it (--no-memory-limit): a bound
// held by the worker's watch alone is not recorded.
//
// A receipt that is not own (a file named by its path, anyone's to have
// written) grants nothing of its own: its
// budget and lent credentials only bound what f names (--allow, which
// must be given where that budget grants anything, else E328, and
// --lend-credential), and it turns no confinement off: its mode off is
// the default unless f asks for --no-confine too.
func replayRun(rec *receipt.Receipt, f *runFlags, cwd string, own bool) (run.Run, error) {
	rp := rec.RunParameters
	if err := replayValues(rp); err != nil {
		return run.Run{}, err
	}
	if !rec.ArgsWhole() {
		return run.Run{}, codes.Errorf(codes.E334, "replay: the receipt does not keep the run's "+
			"arguments whole, so the run cannot be asked for again: %s", rec.ArgsLine())
	}
	r := run.Run{Program: rec.Program.Path, Args: rec.Args, Cwd: cwd, Lend: rp.CredentialsLent}
	was, err := budget.Parse([]string{rec.Budget}, filepath.Dir(rec.Program.Path))
	if err != nil {
		return run.Run{}, codes.Errorf(codes.E301, "replay: the receipt's budget %q: %w", rec.Budget,
			err)
	}
	// A run's receipt keeps its budget's canonical text, which reads back
	// as written. One that does not is not taken as the other budget it
	// reads as: a path with a comma, kept before budget.ParseItem refused
	// one, read "io,fs:read:/srv/q,fs" back as io, fs and fs:read:/srv/q.
	if was.String() != rec.Budget {
		return run.Run{}, codes.Errorf(codes.E301, "replay: the receipt's budget %q reads back "+
			"as %q, another budget: nothing ran", rec.Budget, was.String())
	}
	r.Budget = was
	if !own {
		if len(f.allow) == 0 && (was.String() != "" || len(rp.CredentialsLent) > 0) {
			e := codes.Errorf(codes.E328, "replay: the receipt is a file named by its path, "+
				"and asks for budget %q and credentials lent %s: a replay of it grants only "+
				"what --allow names, and none was given", rec.Budget,
				listOrNone(rp.CredentialsLent))
			e.Do = replayForeignDo
			return run.Run{}, e
		}
		r.Lend = nil // only what --lend-credential lends, below
		if rp.Confine == core.ModeOff && !f.noConfine {
			rp.Confine = core.ModeDefault
		}
	}
	if len(f.allow) > 0 {
		if r.Budget, err = budget.Parse(f.allow, cwd); err != nil {
			return run.Run{}, codes.Errorf(codes.E301, "--allow: %w", err)
		}
		if err := r.Budget.BeneathAs(was, guard.Resolved); err != nil {
			return run.Run{}, wider("--allow %s widens the receipt's budget: %w", f.allow.String(), err)
		}
	}
	if err := registered(r.Budget); err != nil {
		return run.Run{}, err
	}
	r.Timeout = time.Duration(rp.TimeoutMS) * time.Millisecond
	if f.timeout > 0 {
		if r.Timeout > 0 && f.timeout > r.Timeout {
			return run.Run{}, wider("--timeout %s is longer than the receipt's %s", f.timeout,
				r.Timeout)
		}
		r.Timeout = f.timeout
	}
	if r.MaxMemoryMB, err = replayMemory(rp.MaxMemoryMB, f); err != nil {
		return run.Run{}, err
	}
	if r.Confine, r.Require, err = replayConfine(rp, r.Budget, f); err != nil {
		return run.Run{}, err
	}
	if len(f.lend) > 0 {
		r.Lend = f.lent(cwd)
		for _, p := range r.Lend {
			if !slices.Contains(rp.CredentialsLent, p) {
				return run.Run{}, wider("--lend-credential %s: the receipt's run was lent no such "+
					"credential (it was lent %s)", p, listOrNone(rp.CredentialsLent))
			}
		}
	}
	return r, nil
}

// replayValues refuses (E317) run parameters no Sabline writes, which a
// replay would otherwise take as its own: a timeout below zero or past
// what a duration holds, a memory bound below zero or past
// run.MaxMemoryMB, a confine mode or required level Sabline does not
// know, or a required level with no confinement.
func replayValues(rp receipt.RunParameters) error {
	var err error
	mode := rp.Confine
	if mode == "" {
		mode = core.ModeDefault // a refused run's receipt records none
	}
	switch {
	case rp.TimeoutMS < 0 || rp.TimeoutMS > math.MaxInt64/int64(time.Millisecond):
		err = fmt.Errorf("timeout_ms %d is below zero or past what a timeout holds", rp.TimeoutMS)
	case rp.MaxMemoryMB < 0 || rp.MaxMemoryMB > run.MaxMemoryMB:
		err = fmt.Errorf("max_memory_mb %d is below zero or past the %d a run may be given",
			rp.MaxMemoryMB, run.MaxMemoryMB)
	default:
		err = run.CheckConfine(mode, rp.RequireConfinement)
	}
	if err == nil {
		return nil
	}
	e := codes.Errorf(codes.E317, "replay: the receipt's run parameters hold a value no Sabline "+
		"writes: %s", codes.TerminalSafe(errMessage(err)))
	e.Do = replayValuesDo
	return e
}

// errMessage is err's message without its code, when it has one.
func errMessage(err error) string {
	if e := (*codes.Error)(nil); errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// replayMemory is the memory bound of a replay of a run held to was MB (0
// for none recorded): was, or the narrower bound f gives; for none
// recorded, the bound f gives, else a run's default, and none only with
// --no-memory-limit.
func replayMemory(was int, f *runFlags) (int, error) {
	if _, err := f.memory(); err != nil {
		return 0, err // both --max-memory-mb and --no-memory-limit
	}
	switch {
	case f.noMemory && was > 0:
		return 0, wider("--no-memory-limit lifts the receipt's bound of %d MB", was)
	case f.maxMemoryMB > 0 && was > 0 && f.maxMemoryMB > was:
		return 0, wider("--max-memory-mb %d is more than the receipt's %d", f.maxMemoryMB, was)
	case f.maxMemoryMB > 0:
		return f.maxMemoryMB, nil
	case was == 0 && !f.noMemory:
		return defaultRunMemoryMB, nil // none recorded lifts no bound by itself
	}
	return was, nil
}

// modeRank orders the confine modes from the one that asks the operating
// system for least to the one that asks for most.
var modeRank = map[core.Mode]int{core.ModeOff: 0, core.ModeDefault: 1,
	core.ModeStrict: 2}

// replayConfine is the confine mode and required level of a replay of a
// run asked for with rp under b: rp's, or the stricter ones f gives.
func replayConfine(rp receipt.RunParameters, b budget.Budget, f *runFlags) (core.Mode,
	core.Level, error) {
	mode, req, err := f.mode()
	if err != nil {
		return "", "", err
	}
	was := rp.Confine
	if was == "" {
		was = core.ModeDefault
	}
	if f.confine == "" && !f.noConfine {
		mode = was
	} else if modeRank[mode] < modeRank[was] {
		return "", "", wider("confine mode %s is below the receipt's %s", mode, was)
	}
	switch {
	case req == "":
		req = rp.RequireConfinement
	case rp.RequireConfinement == "":
		// The run asked for no level: the one this machine holds the
		// budget at (run.Required), which the flag may not be below.
		p := core.OSPolicy(b, core.Options{Mode: mode})
		if held, _, _ := run.Required("", mode, p); req.Rank() < held.Rank() {
			return "", "", wider("--require-confinement %s is below the receipt's, the level "+
				"this machine holds the budget at, %s", req, held)
		}
	case req.Rank() < rp.RequireConfinement.Rank():
		return "", "", wider("--require-confinement %s is below the receipt's %s", req,
			rp.RequireConfinement)
	}
	return mode, req, nil
}

// wider is the E328 of a replay flag that widens what the receipt's run
// was given.
func wider(format string, args ...any) error {
	e := codes.Errorf(codes.E328, "replay: "+format, args...)
	e.Do = replayWiderDo
	return e
}

// listOrNone is items joined with commas, or "none".
func listOrNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// limitText is a limit n with its unit, or "none" for 0.
func limitText(n int64, unit string) string {
	if n == 0 {
		return "none"
	}
	return fmt.Sprintf("%d%s", n, unit)
}

// timeoutText is a timeout of ms milliseconds as a duration, or "none"
// for 0.
func timeoutText(ms int64) string {
	if ms == 0 {
		return "none"
	}
	return (time.Duration(ms) * time.Millisecond).String()
}

// printReplayDiff prints, on stdout, the run ids of the two runs, what
// receipts diff says of them (printDiff), each of the budget, timeout,
// memory bound and program digest that differ, and both outcomes. It
// reports whether the replay ran at a level below the original's.
func printReplayDiff(stdout io.Writer, orig, now receipt.StoredReceipt) (weaker bool) {
	fmt.Fprintf(stdout, "replay of run %s: run %s\n", terminalSafe(orig.RunID),
		terminalSafe(now.RunID))
	weaker = printDiff(stdout, []receipt.StoredReceipt{orig, now})
	was, is := orig.RunParameters, now.RunParameters
	lines := [][3]string{
		{"budget", orig.Budget, now.Budget},
		{"timeout", timeoutText(was.TimeoutMS), timeoutText(is.TimeoutMS)},
		{"max_memory_mb", limitText(int64(was.MaxMemoryMB), ""), limitText(int64(is.MaxMemoryMB), "")},
		{"confine", string(was.Confine), string(is.Confine)},
		{"program sha256", orig.Program.SHA256, now.Program.SHA256},
	}
	for _, l := range lines {
		if l[1] != l[2] && l[2] != "" {
			if l[1] == "" { // a run refused before it was set (at its command line)
				l[1] = "not recorded"
			}
			fmt.Fprintln(stdout, terminalSafe(fmt.Sprintf("%s: %s (was %s)", l[0], l[2], l[1])))
		}
	}
	fmt.Fprintln(stdout, terminalSafe(fmt.Sprintf("outcome: %s (was %s)", outcomeText(now.Outcome),
		outcomeText(orig.Outcome))))
	return weaker
}

// outcomeText is an outcome's status, with its code when it has one.
func outcomeText(o receipt.Outcome) string {
	if o.Code == "" {
		return string(o.Status)
	}
	return string(o.Status) + " " + string(o.Code)
}
