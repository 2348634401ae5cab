// Package eval grades a directory of programs for `sabline eval`: each
// program beside its expected output (NAME.vel and NAME.out) runs in a
// confined worker under one budget, its output kept up to a bound, and
// passes only when what it printed is what was expected, byte for byte,
// at the confinement level required. Every run leaves its receipt.
package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// Options are how `sabline eval` grades a directory.
type Options struct {
	Budget  budget.Budget
	Confine core.Mode // core.ModeDefault or ModeStrict; eval never runs unconfined
	// Require is the least level a run may have, partial at least: ""
	// is the level this machine holds the budget at (run.Required), or
	// partial where that is lower.
	Require     core.Level
	Timeout     time.Duration // per program
	MaxMemoryMB int
	Receipts    string // directory for each run's receipt; "" writes none
}

// Grades of a program.
const (
	GradePass  = "pass"  // ran to its end and printed exactly the expected output
	GradeFail  = "fail"  // ran to its end and printed something else
	GradeError = "error" // did not run to its end: refused, failed, timed out, killed
)

// Result is one program's grade. A program that failed (ran to its
// end and printed something else) carries what was expected and what it
// printed, as far as eval kept it.
type Result struct {
	Program     string          `json:"program"`
	Grade       string          `json:"grade"`
	Confinement core.Result     `json:"confinement"`
	Outcome     receipt.Outcome `json:"outcome"`
	Receipt     string          `json:"receipt,omitempty"`
	Expected    *string         `json:"expected,omitempty"` // PROGRAM.out, for a fail
	// what the program printed, for a fail: at most OutputLimit bytes past
	// the expected output's size
	Actual *string `json:"actual,omitempty"`
	// ExpectedRaw and ActualRaw are Expected and Actual as bytes (in JSON,
	// base64), each only where it is not UTF-8: a JSON string holds each
	// byte that is not as U+FFFD, so that two outputs that differ read the
	// same there.
	ExpectedRaw []byte `json:"expected_raw,omitempty"`
	ActualRaw   []byte `json:"actual_raw,omitempty"`
	// OutputBytes is how much the program printed on standard output, and
	// OutputCut is true when that was more than eval kept.
	OutputBytes int64 `json:"output_bytes"`
	OutputCut   bool  `json:"output_cut,omitempty"`
}

// OutputLimit is how much of a program's standard output eval keeps
// beyond the size of its expected output: enough to show what it printed
// instead, and a bound on the memory a program that prints without end
// can make eval hold. Past it the output is counted and dropped, and the
// result says it was cut; such a program cannot pass.
const OutputLimit = 1 << 20

// Run runs every PROGRAM.vel in dir that has a PROGRAM.out beside it (the
// expected standard output), each in its own worker under opts.Budget with
// no standard input, and grades it. Both files are read as a run's files
// are (suiteFile): a program or an expected output that is a link out of
// dir, a device, a pipe, or larger than its bound is an error, E316, and
// does not run. Of each program's standard output it
// keeps at most OutputLimit bytes past the expected output's size; its
// standard error is dropped. A program whose run is confined below
// opts.Require, and never below partial, is not run: it is an error with
// E326.
//
// A stopping signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT: the signals a run
// takes) stops the run it comes in (E309, with its receipt) and the
// grading: no program after it runs, and Run returns what it graded with
// a *Stopped error. One that comes between two runs stops the next from
// starting (and a refused program from being graded); one that comes in
// the last run, or after it, is a *Stopped error all the same. A receipt
// that cannot be kept (E317, E327) stops the grading too: Run returns
// what it graded with a *Halted error.
func Run(dir string, opts Options) ([]Result, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, codes.Errorf(codes.E316, "eval: %w", err)
	}
	var names []string
	listed := map[string]os.DirEntry{}
	for _, e := range entries {
		listed[e.Name()] = e
	}
	for _, e := range entries {
		n := e.Name()
		switch {
		case !e.IsDir() && strings.HasSuffix(n, ".vel"):
			names = append(names, n)
		case !e.IsDir() && strings.HasSuffix(n, ".out"):
			// An expected output whose program is not there (a
			// submission missing, or a directory in its place) is graded
			// an error, not passed over: a class of four would read "3
			// passed" and exit 0.
			if v := strings.TrimSuffix(n, ".out") + ".vel"; !isFile(listed, v) {
				names = append(names, v)
			}
		}
	}
	sort.Strings(names)
	cwd, err := filepath.Abs(dir)
	if err != nil {
		return nil, codes.Errorf(codes.E316, "eval: %w", err)
	}
	// Eval never runs a program at level none. Where no level is asked,
	// each run asks for the level this machine holds the budget at
	// (run.Required) where that is partial at least.
	require := opts.Require
	if require == "" {
		p := core.OSPolicy(opts.Budget, core.Options{Mode: opts.Confine})
		if l, _, _ := run.Required("", opts.Confine, p); l.Rank() < core.Partial.Rank() {
			require = core.Partial
		}
	} else if require.Rank() < core.Partial.Rank() {
		require = core.Partial
	}
	// The expected outputs are the grader's, as the receipts are: no grant
	// reaches one, so that no program reads its answer or writes another's.
	// Each is named by a pattern: the receipts directory, named as it is,
	// is apart (receipts), so that one named r[1] guards itself, not r1.
	guarded := []string{filepath.Join(cwd, "*.out")}
	var receipts []string
	if opts.Receipts != "" {
		if abs, err := filepath.Abs(opts.Receipts); err == nil {
			receipts = append(receipts, abs)
		}
	}
	// Nor, in its run, the other programs graded: no program loads, reads
	// or writes another's (a library, a .vel with no .out, is loaded).
	var graded []string
	for _, name := range names {
		if listed[strings.TrimSuffix(name, ".vel")+".out"] != nil {
			graded = append(graded, name)
		}
	}
	guardedFor := func(self string) []string {
		g := slices.Clip(guarded)
		for _, name := range graded {
			if name != self {
				g = append(g, filepath.Join(cwd, guard.Literal(name)))
			}
		}
		return g
	}
	suite, err := os.OpenRoot(cwd)
	if err != nil {
		return nil, codes.Errorf(codes.E316, "eval: %w", err)
	}
	defer suite.Close()
	signals := make(chan os.Signal, 1)
	heeded := run.Heeded(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	signal.Notify(signals, heeded...)
	defer signal.Stop(signals)
	stopped := func(i int) error {
		select {
		case sig := <-signals:
			return &Stopped{Signal: sig, NotRun: len(names) - i}
		default:
			return nil
		}
	}
	var out []Result
	for i, name := range names {
		if err := stopped(i); err != nil {
			return out, err
		}
		want, err := suiteFile(suite, strings.TrimSuffix(name, ".vel")+".out", MaxExpectedBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue // no expected output: not a graded program (a library it loads, say)
		}
		var src []byte
		if err == nil {
			src, err = suiteFile(suite, name, program.MaxBytes)
		}
		path := filepath.Join(cwd, name)
		if err != nil {
			if !isFile(listed, name) {
				err = fmt.Errorf("%s expects %s, which is not a file of the directory (a "+
					"submission missing?)", strings.TrimSuffix(name, ".vel")+".out", name)
			}
			r, err := evalRefused(path, opts, codes.Errorf(codes.E316, "eval: %v: nothing ran", err))
			if err != nil {
				return out, &Halted{Err: err, NotRun: len(names) - i}
			}
			out = append(out, r)
			continue
		}
		stdout := &bounded.Writer{Max: len(want) + OutputLimit}
		rec := run.Supervise(run.Run{
			Program: path, Source: src, Budget: opts.Budget, Cwd: cwd,
			Confine: opts.Confine, Require: require,
			Timeout: opts.Timeout, MaxMemoryMB: opts.MaxMemoryMB, Receipts: opts.Receipts,
			Guarded: receipts, GuardedMatched: guardedFor(name),
			Stdin: bytes.NewReader(nil), Stdout: stdout,
			Stderr: io.Discard, Signals: true,
		})
		r := Result{
			Program: name, Outcome: rec.Outcome,
			Confinement: rec.Confinement(),
			OutputBytes: stdout.Written(), OutputCut: stdout.Cut(),
		}
		switch {
		case rec.Outcome.Status != receipt.StatusOK:
			r.Grade = GradeError
		case !r.OutputCut && bytes.Equal(stdout.Bytes(), want):
			r.Grade = GradePass
		default:
			r.Grade = GradeFail
			expected, actual := string(want), string(stdout.Bytes())
			r.Expected, r.Actual = &expected, &actual
			r.ExpectedRaw, r.ActualRaw = notUTF8(want), notUTF8(stdout.Bytes())
		}
		if opts.Receipts != "" {
			if r.Receipt, err = rec.Stored(); err != nil {
				if codes.CodeOf(err) != codes.E327 {
					return out, &Halted{Err: err, NotRun: len(names) - i} // it did not run
				}
				// It ran, and is graded; its receipt says it was not finished.
				return append(out, r), &Halted{Err: err, NotRun: len(names) - i - 1}
			}
		}
		out = append(out, r)
	}
	if err := stopped(len(names)); err != nil {
		return out, err // the signal came in the last run, or after it
	}
	if len(out) == 0 {
		return nil, codes.Errorf(codes.E316, "eval: %s has no PROGRAM.vel with a PROGRAM.out beside it",
			dir)
	}
	return out, nil
}

// Halted is the error of a grading that a run's receipt ended (Run): one
// that could not be reserved (E317, a full file system, say: that
// program did not run) or finished (E327: it ran, and is graded). The
// programs graded before it are Run's results; Err says why, with what
// to do.
type Halted struct {
	Err    error
	NotRun int // the .vel files of the directory not run since
}

func (h *Halted) Error() string {
	return fmt.Sprintf("eval: stopped: %d .vel files of the directory not run: %v",
		h.NotRun, h.Err)
}

func (h *Halted) Unwrap() error { return h.Err }

// Stopped is the error of a grading a stopping signal ended (Run): the
// programs graded before it are Run's results, the run it stopped among
// them (E309).
type Stopped struct {
	Signal os.Signal
	NotRun int // the .vel files of the directory not looked at since
}

func (s *Stopped) Error() string {
	return fmt.Sprintf("eval: stopped by %v: %d .vel files of the directory not run", s.Signal,
		s.NotRun)
}

// ExitStatus is the status a command stopped by s exits with: 128 and
// the signal's number, as a run stopped by it (E309).
func (s *Stopped) ExitStatus() int {
	if n, ok := s.Signal.(syscall.Signal); ok {
		return codes.ExitSignaled + int(n)
	}
	return codes.ExitSignaled
}

// MaxExpectedBytes is the largest expected output (PROGRAM.out) eval reads.
const MaxExpectedBytes = 16 << 20

// suiteFile reads the file name of a suite as a run's files are read:
// through suite, which follows a link only while it stays beneath the
// suite's directory, a regular file (a device never ends, a pipe blocks),
// of at most max bytes. The error names the file, never what it holds.
func suiteFile(suite *os.Root, name string, max int64) ([]byte, error) {
	fi, err := suite.Stat(name)
	var pe *os.PathError
	switch {
	case errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent":
		return nil, fmt.Errorf("%s leads out of the suite's directory, by a link", name)
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := suite.Lstat(name); lerr == nil {
			// A link to nothing is a file meant, not one left out: an
			// expected output so named is refused, never read as none.
			return nil, fmt.Errorf("%s is a link to nothing", name)
		}
		return nil, err
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := suite.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if got, err := f.Stat(); err != nil || !os.SameFile(fi, got) {
		return nil, fmt.Errorf("%s changed while it was opened", name)
	}
	data, over, err := bounded.ReadSized(f, max, fi.Size())
	switch {
	case over:
		return nil, fmt.Errorf("%s is larger than %d bytes", name, max)
	case err != nil:
		return nil, err // a read's error names the file
	}
	return data, nil
}

// isFile reports whether listed, a directory's entries by name, holds
// name as anything but a directory.
func isFile(listed map[string]os.DirEntry, name string) bool {
	e := listed[name]
	return e != nil && !e.IsDir()
}

// notUTF8 is b where it is not UTF-8, else nil.
func notUTF8(b []byte) []byte {
	if utf8.Valid(b) {
		return nil
	}
	return b
}

// evalRefused is the grade of a program eval did not run, refused by err,
// with its receipt when opts keeps them.
func evalRefused(path string, opts Options, err error) (Result, error) {
	r := Result{Program: filepath.Base(path), Grade: GradeError, Outcome: receipt.OutcomeOf(err)}
	if opts.Receipts == "" {
		return r, nil
	}
	rec := receipt.NewForSource(path, nil, opts.Budget, nil)
	rec.Outcome, rec.Timings.Started = r.Outcome, time.Now().UTC()
	r.Receipt, err = rec.Write(opts.Receipts)
	return r, err
}

// Summary counts the grades: "N passed, N failed, N errors".
func Summary(rs []Result) string {
	n := map[string]int{}
	for _, r := range rs {
		n[r.Grade]++
	}
	return fmt.Sprintf("%d passed, %d failed, %d errors", n[GradePass], n[GradeFail], n[GradeError])
}
