package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/kernelreport"
)

// reportCmd: sabline report [--md FILE] [--html FILE] REPORT.json...
// renders kernel reports (tests/confine/kernel-GOOS.json), at most one
// per system, as Markdown (to standard output unless --md or --html
// names a file) and as one HTML page; sabline report diff OLD NEW
// compares two reports of one system.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "diff" {
		return reportDiffCmd(args[1:], stdout, stderr)
	}
	fs, mdFile, htmlFile := reportFlagSet()
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	paths := append(positional, rest...)
	if len(paths) == 0 {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "report: name one kernel report or more "+
			"(tests/confine/kernel-GOOS.json), or diff OLD NEW"), "")
	}
	reports, err := readReports(paths)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	seen := map[string]string{}
	for _, r := range reports {
		if other, ok := seen[r.OS]; ok {
			return cmdline.Report(stderr, codes.Errorf(codes.E301,
				"report: %s and %s are both reports of %s: give one per system",
				other, r.Source, r.OS), "")
		}
		seen[r.OS] = r.Source
	}
	if *mdFile == "" && *htmlFile == "" {
		if _, err := stdout.Write(kernelreport.Markdown(reports)); err != nil {
			return codes.ExitFailed
		}
		return 0
	}
	if *mdFile != "" {
		if err := os.WriteFile(*mdFile, kernelreport.Markdown(reports), 0o644); err != nil {
			return cmdline.Report(stderr, codes.Errorf(codes.E301, "report --md: %w", err), "")
		}
	}
	if *htmlFile != "" {
		page, err := kernelreport.HTML(reports)
		if err == nil {
			err = os.WriteFile(*htmlFile, page, 0o644)
		}
		if err != nil {
			return cmdline.Report(stderr, codes.Errorf(codes.E301, "report --html: %w", err), "")
		}
	}
	return 0
}

// reportFlagSet is the flag set of sabline report, and where --md and
// --html go.
func reportFlagSet() (fs *flag.FlagSet, mdFile, htmlFile *string) {
	fs = cmdline.NewFlagSet("report")
	mdFile = fs.String("md", "", "write the Markdown to `file`")
	htmlFile = fs.String("html", "", "write the HTML page to `file`")
	return fs, mdFile, htmlFile
}

// reportDiffCmd: sabline report diff OLD NEW. It prints every change and
// ends with E332 (exit 1) when NEW regressed.
func reportDiffCmd(args []string, stdout, stderr io.Writer) int {
	positional, rest, err := cmdline.ParseInterspersed(cmdline.NewFlagSet("report diff"), args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	paths := append(positional, rest...)
	if len(paths) != 2 {
		return cmdline.Report(stderr, codes.Errorf(codes.E301,
			"report diff: want OLD NEW, two kernel reports, got %d", len(paths)), "")
	}
	reports, err := readReports(paths)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	changes, err := kernelreport.Diff(reports[0], reports[1])
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	if _, err := stdout.Write(changes.Text()); err != nil {
		return codes.ExitFailed
	}
	if targets, cells := changes.Regressions(); targets+cells > 0 {
		return cmdline.Report(stderr, codes.Errorf(codes.E332, "report diff: %s regressed from %s: %s",
			paths[1], paths[0], regressions(targets, cells)), "")
	}
	return 0
}

// counted is n things, "1 target" or "2 targets".
func counted(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// regressions counts them for the message of E332.
func regressions(targets, cells int) string {
	var parts []string
	if targets > 0 {
		parts = append(parts, counted(targets, "target"))
	}
	if cells > 0 {
		parts = append(parts, counted(cells, "enforcement cell"))
	}
	return strings.Join(parts, " and ") + " regressed (the lines marked REGRESSED)"
}

// readReports reads each kernel report (kernelreport.Read: E333 for one
// that cannot be read).
func readReports(paths []string) ([]kernelreport.Named, error) {
	var out []kernelreport.Named
	for _, p := range paths {
		r, err := kernelreport.Read(p)
		if err != nil {
			return nil, err
		}
		out = append(out, kernelreport.Named{Report: r, Source: p})
	}
	return out, nil
}
