package cli

import (
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
	fs := newFlagSet("audit", stderr)
	var allow allowFlag
	fs.Var(&allow, "allow", "audit this budget instead of the declared one")
	mode := fs.String("confine", "", "strict: granted modules widen nothing")
	asJSON := fs.Bool("json", false, "print the audit as JSON")
	positional, _, err := parseInterspersed(fs, args)
	if err != nil {
		return runtime.ExitUsage
	}
	if len(positional) != 1 {
		return report(stderr, runtime.Errorf(runtime.E301, "audit: want one program"), "")
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
	fs := newFlagSet("os-policy", stderr)
	var allow allowFlag
	fs.Var(&allow, "allow", "the budget")
	mode := fs.String("confine", "", "strict: granted modules widen nothing")
	asJSON := fs.Bool("json", false, "print JSON")
	enforces := fs.Bool("enforces", false, "print what each system's kernel holds for each budget item")
	positional, _, err := parseInterspersed(fs, args)
	if err != nil {
		return runtime.ExitUsage
	}
	if len(positional) > 0 {
		return report(stderr, runtime.Errorf(runtime.E301, "os-policy takes no program: give the budget with --allow"), "")
	}
	if *enforces {
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
