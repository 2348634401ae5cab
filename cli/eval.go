package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/brokenpipe"
	"github.com/sabline/sabline/internal/eval"
	"github.com/sabline/sabline/internal/probe"
	"github.com/sabline/sabline/receipt"
)

// evalCmd: sabline eval DIR [--allow ...] [--timeout D] [--json], or
// sabline eval --confinement-probe [--json].
func evalCmd(args []string, stdout, stderr io.Writer) int {
	// As a run: each receipt is finished. The confinement probe starts a
	// sleeper of the system's, which must find SIGPIPE at its default.
	brokenpipe.Catch()
	fs, ef := evalFlagSet()
	f, asJSON, wantProbe := &ef.run, &ef.json, &ef.probe
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	positional = append(positional, rest...)
	mode, require, err := f.mode()
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	if mode == core.ModeOff {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "eval never runs unconfined: it refuses --no-confine"), "")
	}
	if *wantProbe {
		if len(positional) > 0 {
			return cmdline.Report(stderr,
				codes.Errorf(codes.E301, "eval --confinement-probe takes no directory, got %s",
					strings.Join(positional, " ")), "")
		}
		var others []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "confinement-probe" && f.Name != "json" && f.Name != "confine" {
				others = append(others, "--"+f.Name)
			}
		})
		if len(others) > 0 {
			return cmdline.Report(stderr,
				codes.Errorf(codes.E301,
					"eval --confinement-probe runs its own attempts under no budget and takes only "+
						"--confine and --json: drop %s", strings.Join(others, " ")), "")
		}
		rep, err := probe.Run(mode, 0)
		if err != nil {
			return cmdline.Report(stderr, codes.Errorf(codes.E310, "%w", err), "")
		}
		if *asJSON {
			return printJSON(stdout, rep)
		}
		fmt.Fprintf(stdout, "confinement: %s: %s [%s]\n", rep.Confinement.Level, rep.Confinement.Reason,
			strings.Join(rep.Confinement.Layers, ", "))
		for _, a := range rep.Attempts {
			line := fmt.Sprintf("%-8s %-13s %s", a.Op, a.Result, a.Target)
			if a.Errno != "" {
				line += " (" + a.Errno
				if len(a.Layers) > 0 {
					line += ", " + strings.Join(a.Layers, ", ")
				}
				line += ")"
			}
			fmt.Fprintln(stdout, line)
		}
		return 0
	}
	if len(positional) != 1 {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "eval: want one directory of programs"), "")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return cmdline.Report(stderr, workingDirError("eval", err), "")
	}
	b, err := budget.Parse(f.allow, cwd)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "--allow: %w", err), "")
	}
	if err := registered(b); err != nil {
		return cmdline.Report(stderr, err, "")
	}
	memory, err := f.memory()
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	dir := f.receipts
	if dir == "" {
		if dir, err = receipt.DefaultDir(); err != nil {
			return cmdline.Report(stderr, err, "")
		}
	}
	results, err := eval.Run(positional[0], eval.Options{
		Budget:      b,
		Confine:     mode,
		Require:     require,
		Timeout:     f.timeout,
		MaxMemoryMB: memory,
		Receipts:    dir,
	})
	var stopped *eval.Stopped // the grades so far are printed, then why it stopped
	var halted *eval.Halted   // likewise, a receipt that could not be kept
	if err != nil && !errors.As(err, &stopped) && !errors.As(err, &halted) {
		return cmdline.Report(stderr, err, "")
	}
	if halted != nil && len(results) == 0 {
		return cmdline.Report(stderr, halted.Err, "")
	}
	if *asJSON {
		printJSON(stdout, results)
	} else {
		for _, r := range results {
			code := ""
			if r.Outcome.Code != "" {
				code = " " + string(r.Outcome.Code)
			}
			fmt.Fprintln(stdout, terminalSafe(strings.TrimRight(fmt.Sprintf("%-5s %-30s %-7s%s",
				strings.ToUpper(r.Grade), r.Program, r.Confinement.Level, code), " ")))
			if r.Grade == eval.GradeFail {
				printDifference(stdout, r)
			}
		}
		fmt.Fprintln(stdout, "eval: "+eval.Summary(results))
	}
	if stopped != nil {
		fmt.Fprintf(stderr, "sabline: %v\n", stopped)
		return stopped.ExitStatus()
	}
	if halted != nil {
		fmt.Fprintf(stderr, "sabline: eval: stopped: %d .vel files of the directory not run\n",
			halted.NotRun)
		return cmdline.Report(stderr, halted.Err, "")
	}
	for _, r := range results {
		if r.Grade != eval.GradePass {
			return 1
		}
	}
	return 0
}

// evalFlags are the flags of sabline eval.
type evalFlags struct {
	run         runFlags
	json, probe bool
}

// evalFlagSet is the flag set of sabline eval, and where it puts them.
func evalFlagSet() (*flag.FlagSet, *evalFlags) {
	fs := cmdline.NewFlagSet("eval")
	f := &evalFlags{}
	f.run.register(fs)
	fs.Lookup("no-confine").Usage = evalNoConfine
	f.run.timeout = defaultEvalTimeout // and its help says so
	fs.Lookup("timeout").DefValue = defaultEvalTimeout.String()
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.BoolVar(&f.probe, "confinement-probe", false,
		"what a confined worker could and could not do")
	return fs, f
}

// evalNoConfine is eval's usage of --no-confine, a flag it takes only to
// refuse it by name.
const evalNoConfine = "refused: eval never runs unconfined"

// defaultEvalTimeout bounds each program eval runs when --timeout is not
// given: a grader's loop must not hang on one submission.
const defaultEvalTimeout = 10 * time.Second

// maxShown is how much of a line printDifference shows.
const maxShown = 100

// printDifference shows where a failed program's output first differs
// from PROGRAM.out: the line, what was expected and what was printed, each
// quoted (so that a control character shows as its escape), and whether
// eval cut the output.
func printDifference(w io.Writer, r eval.Result) {
	want := strings.SplitAfter(*r.Expected, "\n")
	got := strings.SplitAfter(*r.Actual, "\n")
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	line := func(lines []string) string {
		if i >= len(lines) || (lines[i] == "" && i == len(lines)-1) {
			return "(the end of the output)"
		}
		if l := lines[i]; len(l) > maxShown {
			return fmt.Sprintf("%q... (%d bytes in the line)", l[:maxShown], len(l))
		}
		return fmt.Sprintf("%q", lines[i])
	}
	fmt.Fprintf(w, "      line %d: expected %s\n", i+1, line(want))
	fmt.Fprintf(w, "      %s  printed  %s\n", strings.Repeat(" ", len(fmt.Sprint(i+1))+5), line(got))
	if r.OutputCut {
		fmt.Fprintf(w, "      the program printed %d bytes: eval kept the first %d "+
			"(%d past the expected output's size) and cut the rest\n",
			r.OutputBytes, len(*r.Actual), eval.OutputLimit)
	}
}
