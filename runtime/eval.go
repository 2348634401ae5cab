package runtime

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
)

// EvalOptions are how `sabline eval` grades a directory.
type EvalOptions struct {
	Budget      budget.Budget
	Confine     string        // ConfineDefault or ConfineStrict; eval never runs unconfined
	Require     confine.Level // the least level a run may have: partial (the default) or full
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

// EvalResult is one program's grade.
type EvalResult struct {
	Program     string         `json:"program"`
	Grade       string         `json:"grade"`
	Confinement confine.Result `json:"confinement"`
	Outcome     Outcome        `json:"outcome"`
	Receipt     string         `json:"receipt,omitempty"`
}

// Eval runs every PROGRAM.vel in dir that has a PROGRAM.out beside it (the
// expected standard output), each in its own worker under opts.Budget with
// no standard input, and grades it. A program whose run is confined below
// opts.Require, and never below partial, is not run: it is an error with
// E326.
func Eval(dir string, opts EvalOptions) ([]EvalResult, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, Errorf(E316, "eval: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".vel") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	cwd, err := filepath.Abs(dir)
	if err != nil {
		return nil, Errorf(E316, "eval: %w", err)
	}
	require := opts.Require
	if require.Rank() < confine.Partial.Rank() {
		require = confine.Partial // eval never runs a program at level none
	}
	var guarded []string
	if opts.Receipts != "" {
		if abs, err := filepath.Abs(opts.Receipts); err == nil {
			guarded = []string{abs}
		}
	}
	var out []EvalResult
	for _, name := range names {
		want, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(name, ".vel")+".out"))
		if err != nil {
			continue // no expected output: not a graded program (a library it loads, say)
		}
		var stdout, stderr bytes.Buffer
		rec := Supervise(Run{
			Program: filepath.Join(cwd, name), Budget: opts.Budget, Cwd: cwd,
			Confine: opts.Confine, Require: require,
			Timeout: opts.Timeout, MaxMemoryMB: opts.MaxMemoryMB, Guarded: guarded,
			Stdin: bytes.NewReader(nil), Stdout: &stdout, Stderr: &stderr,
		})
		r := EvalResult{
			Program: name, Outcome: rec.Outcome,
			Confinement: rec.Confinement(),
		}
		switch {
		case rec.Outcome.Status != StatusOK:
			r.Grade = GradeError
		case bytes.Equal(stdout.Bytes(), want):
			r.Grade = GradePass
		default:
			r.Grade = GradeFail
		}
		if opts.Receipts != "" {
			if r.Receipt, err = rec.Write(opts.Receipts); err != nil {
				return out, err
			}
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, Errorf(E316, "eval: %s has no PROGRAM.vel with a PROGRAM.out beside it", dir)
	}
	return out, nil
}

// EvalSummary counts the grades: "N passed, N failed, N errors".
func EvalSummary(rs []EvalResult) string {
	n := map[string]int{}
	for _, r := range rs {
		n[r.Grade]++
	}
	return fmt.Sprintf("%d passed, %d failed, %d errors", n[GradePass], n[GradeFail], n[GradeError])
}
