package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/audit"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// auditCmd: sabline audit [--json] PROGRAM.vel [--allow ...] [--confine strict].
func auditCmd(args []string, stdout, stderr io.Writer) int {
	fs, af := auditFlagSet()
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	allow, mode, asJSON := af.allow, &af.confine, &af.json
	if len(positional) != 1 || len(rest) > 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "audit: want one program, got %d argument(s)",
				len(positional)+len(rest)), "")
	}
	confineMode, err := cmdline.ParseConfine(*mode)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	// Read as a run reads it: at most program.MaxBytes, so that a program
	// that is /dev/zero, or a file of gigabytes, is E316, not the memory
	// of the machine.
	src, _, err := run.ReadProgram(positional[0])
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	a, err := audit.MakeAudit(positional[0], src, allow, confineMode)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	// Relative paths in the audited budget are the program directory's,
	// where the safe command runs.
	dir, err := filepath.Abs(filepath.FromSlash(a.RunIn))
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E316, "program %s: %w", positional[0], err), "")
	}
	here, err := budget.Parse([]string{a.Audited}, dir)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "the audited budget: %w", err), "")
	}
	if err := registered(here); err != nil {
		return cmdline.Report(stderr, err, "")
	}
	if *asJSON {
		return writeJSON(stdout, a.JSON())
	}
	printAudit(stdout, a, dir,
		confine.OnThisMachine(core.OSPolicy(here, core.Options{Mode: confineMode})), refusedHere(here))
	return 0
}

// refusedHere is the refusal a run under b would meet here before
// anything ran, as `sabline run` admits a budget (run.Admit): an item that
// names what no grant reaches (E329), Sabline's receipts of this user
// among them; nil when b is admitted. A level here means nothing for a
// budget no run gets.
func refusedHere(b budget.Budget) error {
	var guarded []string
	if dir, err := receipt.DefaultDir(); err == nil {
		if abs, err := filepath.Abs(dir); err == nil {
			guarded = []string{abs}
		}
	}
	return run.Admit(run.Guard(guarded, nil), b)
}

// auditFlags are the flags of sabline audit, and of sabline os-policy
// (which takes --enforces too).
type auditFlags struct {
	allow          cmdline.List
	confine        string
	json, enforces bool
}

// auditFlagSet is the flag set of sabline audit, and where it puts them.
func auditFlagSet() (*flag.FlagSet, *auditFlags) {
	fs := cmdline.NewFlagSet("audit")
	f := &auditFlags{}
	fs.Var(&f.allow, "allow", "audit these budget `items` instead of the declared ones")
	fs.StringVar(&f.confine, "confine", "", "strict, the one `mode`: granted modules widen nothing")
	fs.BoolVar(&f.json, "json", false, "print the audit as JSON")
	return fs, f
}

// osPolicyFlagSet is the flag set of sabline os-policy, and where it puts
// them.
func osPolicyFlagSet() (*flag.FlagSet, *auditFlags) {
	fs := cmdline.NewFlagSet("os-policy")
	f := &auditFlags{}
	fs.Var(&f.allow, "allow", "the budget `items`")
	fs.StringVar(&f.confine, "confine", "", "strict, the one `mode`: granted modules widen nothing")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	fs.BoolVar(&f.enforces, "enforces", false,
		"print what each system's kernel holds for each budget item")
	return fs, f
}

// printAudit prints an audit for a person: the program, what it declares,
// the safe command with the directory to run it in (absolute, so that it
// works from anywhere), the policy's digest, what widened it, and the
// level on each system and on this machine, or the refusal a run meets
// here before anything runs (refused, when not nil). A program's name and
// its # allow: line are its author's words: every line goes through
// terminalSafe.
func printAudit(w io.Writer, a *audit.Audit, dir string, here core.Result, refused error) {
	line := func(format string, args ...any) {
		fmt.Fprintln(w, terminalSafe(fmt.Sprintf(format, args...)))
	}
	declared := a.Declared
	if declared == "" {
		declared = "(no # allow: line: the program declares nothing)"
	}
	line("program:       %s (sha256 %s)", a.Program, a.SHA256)
	line("declares:      %s", declared)
	line("safe command:  cd %s && %s", audit.ShellQuote(dir), a.SafeCommand)
	line("os policy:     sha256 %s (relative paths as declared; audit --json prints it)",
		a.PolicySHA256)
	for _, wd := range a.WidenedBy {
		line("widened by:    %s, to %s", wd.Reason(), wd.To)
	}
	for _, sys := range confine.Systems() {
		r := a.Confinement[string(sys)]
		line("%-14s %s: %s [%s]", string(sys)+":", r.Level, r.Reason, strings.Join(r.Layers, ", "))
	}
	if refused != nil {
		line("this machine:  refused before anything runs: %v", refused)
		return
	}
	line("this machine:  %s: %s", here.Level, here.Reason)
}

// enforcesTakesNoBudget is the E301 of os-policy --enforces given budget
// flags (%s: the flags).
const enforcesTakesNoBudget = "os-policy --enforces prints the whole table and takes no budget: " +
	"drop %s, or drop --enforces to see this budget's policy"

// osPolicyCmd: sabline os-policy [--allow ...] [--confine strict] [--json],
// or --enforces [--json].
func osPolicyCmd(args []string, stdout, stderr io.Writer) int {
	fs, pf := osPolicyFlagSet()
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	allow, mode, asJSON, enforces := pf.allow, &pf.confine, &pf.json, &pf.enforces
	if extra := append(positional, rest...); len(extra) > 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "os-policy takes no program (got %s): give the budget with --allow",
				strings.Join(extra, " ")), "")
	}
	if *enforces {
		var budgetFlags []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "enforces" && f.Name != "json" {
				budgetFlags = append(budgetFlags, "--"+f.Name)
			}
		})
		if len(budgetFlags) > 0 {
			e := codes.Errorf(codes.E301, enforcesTakesNoBudget, strings.Join(budgetFlags, " "))
			return cmdline.Report(stderr, e, "")
		}
		if *asJSON {
			return printJSON(stdout, enforcesJSON())
		}
		for _, row := range confine.Enforces() {
			fmt.Fprintf(stdout, "%s\n", row.Item)
			for _, sys := range confine.Systems() {
				c, _ := row.Cell(sys)
				fmt.Fprintf(stdout, "  %-8s %-7s %s\n", sys, c.Holds, c.Text)
			}
		}
		return 0
	}
	confineMode, err := cmdline.ParseConfine(*mode)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	b, err := budget.Parse(allow, cwd)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "--allow: %w", err), "")
	}
	if err := registered(b); err != nil {
		return cmdline.Report(stderr, err, "")
	}
	if err := refusedHere(b); err != nil {
		return cmdline.Report(stderr, err, "") // a run refuses it: the system is asked nothing
	}
	p := core.OSPolicy(b, core.Options{Mode: confineMode})
	if *asJSON {
		return printJSON(stdout, struct {
			Policy core.Policy `json:"policy"`
			SHA256 string      `json:"sha256"`
		}{p, p.SHA256()})
	}
	writeJSON(stdout, p.Indented())
	fmt.Fprintf(stdout, "sha256 %s\n", p.SHA256())
	return 0
}

// enforcesCell is one cell of the ENFORCES table as --enforces --json
// prints it.
type enforcesCell struct {
	Holds  confine.Holds `json:"holds"`
	Text   string        `json:"text"`
	Layers []string      `json:"layers"`
}

// enforcesRow is one row of the ENFORCES table as --enforces --json
// prints it: the budget item and what each system holds of it.
type enforcesRow struct {
	ID    string                          `json:"id"`
	Item  string                          `json:"item"`
	Holds map[confine.System]enforcesCell `json:"systems"`
}

// enforcesJSON is the ENFORCES table with snake_case keys, each row's
// cells by system.
func enforcesJSON() []enforcesRow {
	out := make([]enforcesRow, len(confine.Enforces()))
	for i, row := range confine.Enforces() {
		out[i] = enforcesRow{ID: row.ID, Item: row.Item, Holds: map[confine.System]enforcesCell{}}
		for _, sys := range confine.Systems() {
			c, _ := row.Cell(sys)
			if c.Layers == nil {
				c.Layers = []string{}
			}
			out[i].Holds[sys] = enforcesCell{Holds: c.Holds, Text: c.Text, Layers: c.Layers}
		}
	}
	return out
}
