// Package cli is the sabline command line: flags in, the runtime and
// confine packages called, an exit status out. cmd/sabline is its main;
// a program that embeds Sabline with host modules of its own registers
// them and calls Main from its own main, so that the worker, which is the
// same binary started again, has them too:
//
//	func main() {
//		lang.RegisterModule("geo", geoModule)
//		sabline.HandOver() // Main would hand over too; this says it first
//		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
//	}
//
// The doors, sabline serve and sabline mcp, are not linked here: their
// command line is package doorcmd, whose Main is this one with them, in
// the sabline-door command that this one starts in its place for them.
// A host that wants its doors calls doorcmd.Main instead.
package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/phase"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/internal/worker"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// knockoutWarning is what a knock-out build says before anything else.
const knockoutWarning = "sabline: KNOCK-OUT BUILD: every budget check passes; " +
	"only the operating system holds this run"

// Main runs the command line args and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	phase.Mark("main")
	if len(args) > 0 && args[0] == wire.WorkerArg {
		return worker.Main(args[1:])
	}
	if program.Knockout {
		fmt.Fprintln(stderr, knockoutWarning)
	}
	if len(args) == 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "no program to run and no command: sabline --help lists them"), "")
	}
	if isDoor(args[0]) {
		return doorCmd(args[0], args[1:], stdin, stdout, stderr)
	}
	switch args[0] {
	case "help", "-h", "--help":
		return helpCmd(args[1:], stdout, stderr)
	case "version", "--version":
		if status, ok := noArgs("version", args[1:], stdout, stderr); !ok {
			return status
		}
		fmt.Fprintln(stdout, receipt.VersionString())
		return 0
	case "modules":
		if status, ok := noArgs("modules", args[1:], stdout, stderr); !ok {
			return status
		}
		for _, n := range lang.DefaultRegistry.Names() {
			fmt.Fprintln(stdout, n)
		}
		return 0
	case "receipts":
		return receiptsCmd(args[1:], stdout, stderr)
	case "replay":
		return replayCmd(args[1:], stdin, stdout, stderr)
	case "audit":
		return auditCmd(args[1:], stdout, stderr)
	case "os-policy":
		return osPolicyCmd(args[1:], stdout, stderr)
	case "doctor":
		return doctorCmd(args[1:], stdout, stderr)
	case "report":
		return reportCmd(args[1:], stdout, stderr)
	case "eval":
		return evalCmd(args[1:], stdout, stderr)
	case "run":
		args = args[1:]
	}
	return runCmd(args, stdin, stdout, stderr)
}

// commands are the names Main takes as a first argument, for the
// message of a name that is near one of them (nearCommand).
var commands = []string{"help", "version", "modules", "receipts", "audit", "os-policy", "doctor",
	"report", "eval", "serve", "mcp", "run", "replay"}

// nearCommand returns the command name is a misspelling of: one within
// two edits of it, when name is no program (not a .vel file, no path, no
// file of that name).
func nearCommand(name string) (string, bool) {
	if strings.HasSuffix(name, ".vel") || strings.ContainsAny(name, `/\`) {
		return "", false
	}
	if _, err := os.Stat(name); err == nil {
		return "", false
	}
	for _, c := range commands {
		if editDistance(name, c) <= 2 {
			return c, true
		}
	}
	return "", false
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// terminalSafe escapes what a terminal could take for a command; see
// codes.TerminalSafe. Every line a command prints that can hold text a
// program chose (a message, a path, a receipt field) goes through it; the
// program's own standard output does not: that is the program's output.
func terminalSafe(s string) string { return codes.TerminalSafe(s) }
