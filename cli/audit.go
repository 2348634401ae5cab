package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/runtime"
)

// auditCmd: sabline audit [--json] PROGRAM.vel [--allow ...] [--confine strict].
func auditCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("audit")
	var allow allowFlag
	fs.Var(&allow, "allow", "audit these budget `items` instead of the declared ones")
	mode := fs.String("confine", "", "`strict`: granted modules widen nothing")
	asJSON := fs.Bool("json", false, "print the audit as JSON")
	positional, rest, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	if len(positional) != 1 || len(rest) > 0 {
		return report(stderr, runtime.Errorf(runtime.E301, "audit: want one program, got %d argument(s)", len(positional)+len(rest)), "")
	}
	strict, err := parseConfine(*mode)
	if err != nil {
		return report(stderr, err, "")
	}
	src, err := os.ReadFile(positional[0])
	if err != nil {
		return report(stderr, runtime.Errorf(runtime.E316, "program %s: %w", positional[0], err), "")
	}
	a, err := runtime.MakeAudit(positional[0], src, allow, strict)
	if err != nil {
		return report(stderr, err, "")
	}
	if *asJSON {
		stdout.Write(a.JSON())
		return 0
	}
	declared := a.Declared
	if declared == "" {
		declared = "(no # allow: line: the program declares nothing)"
	}
	fmt.Fprintf(stdout, "program:       %s (sha256 %s)\n", a.Program, a.SHA256)
	fmt.Fprintf(stdout, "declares:      %s\n", declared)
	fmt.Fprintf(stdout, "safe command:  %s\n", a.SafeCommand)
	fmt.Fprintf(stdout, "os policy:     sha256 %s (relative paths as declared; audit --json prints it)\n", a.PolicySHA256)
	for _, w := range a.WidenedBy {
		fmt.Fprintf(stdout, "widened by:    %s, to %s\n", w.Reason(), w.To)
	}
	for _, goos := range runtime.Systems {
		r := a.Confinement[goos]
		fmt.Fprintf(stdout, "%-14s %s: %s [%s]\n", goos+":", r.Level, r.Reason, strings.Join(r.Layers, ", "))
	}
	cwd, _ := os.Getwd()
	here, err := budget.Parse([]string{a.Audited}, cwd)
	if err == nil {
		r := confine.OnThisMachine(confine.OSPolicy(here, confine.Options{Strict: a.Strict}))
		fmt.Fprintf(stdout, "this machine:  %s: %s\n", r.Level, r.Reason)
	}
	return 0
}

// osPolicyCmd: sabline os-policy [--allow ...] [--confine strict] [--json],
// or --enforces [--json].
func osPolicyCmd(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("os-policy")
	var allow allowFlag
	fs.Var(&allow, "allow", "the budget `items`")
	mode := fs.String("confine", "", "`strict`: granted modules widen nothing")
	asJSON := fs.Bool("json", false, "print JSON")
	enforces := fs.Bool("enforces", false, "print what each system's kernel holds for each budget item")
	positional, rest, err := parseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	if extra := append(positional, rest...); len(extra) > 0 {
		return report(stderr, runtime.Errorf(runtime.E301, "os-policy takes no program (got %s): give the budget with --allow", strings.Join(extra, " ")), "")
	}
	if *enforces {
		var budgetFlags []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "enforces" && f.Name != "json" {
				budgetFlags = append(budgetFlags, "--"+f.Name)
			}
		})
		if len(budgetFlags) > 0 {
			return report(stderr, runtime.Errorf(runtime.E301, "os-policy --enforces prints the whole table and takes no budget: drop %s, or drop --enforces to see this budget's policy", strings.Join(budgetFlags, " ")), "")
		}
		if *asJSON {
			return printJSON(stdout, confine.Enforces)
		}
		for _, row := range confine.Enforces {
			fmt.Fprintf(stdout, "%s\n", row.Item)
			for _, goos := range runtime.Systems {
				c, _ := row.Cell(goos)
				fmt.Fprintf(stdout, "  %-8s %-7s %s\n", goos, c.Holds, c.Text)
			}
		}
		return 0
	}
	strict, err := parseConfine(*mode)
	if err != nil {
		return report(stderr, err, "")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return report(stderr, err, "")
	}
	b, err := budget.Parse(allow, cwd)
	if err != nil {
		return report(stderr, runtime.Errorf(runtime.E301, "--allow: %w", err), "")
	}
	p := confine.OSPolicy(b, confine.Options{Strict: strict})
	if *asJSON {
		return printJSON(stdout, struct {
			Policy confine.Policy `json:"policy"`
			SHA256 string         `json:"sha256"`
		}{p, p.SHA256()})
	}
	stdout.Write(p.Indented())
	fmt.Fprintf(stdout, "sha256 %s\n", p.SHA256())
	return 0
}
