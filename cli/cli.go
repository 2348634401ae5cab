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
package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

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
		return report(stderr,
			codes.Errorf(codes.E301, "no program to run and no command: sabline --help lists them"), "")
	}
	switch args[0] {
	case "help", "-h", "--help":
		if status, ok := noArgs(args[0], args[1:], stdout, stderr); !ok {
			return status
		}
		fmt.Fprint(stdout, usage)
		return 0
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
	case "serve":
		return serveCmd(args[1:], stdout, stderr)
	case "mcp":
		return mcpCmd(args[1:], stdin, stdout, stderr)
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

const usage = `usage: sabline [run] [flags] PROGRAM.vel [-- ARGS...]

Runs PROGRAM.vel under the budget the --allow flags grant. Each effect the
program attempts is checked against the budget; under it the operating
system is asked to hold the same budget before the first statement.

Run flags (before or after the program):
  --allow ITEM[,ITEM...]      grant budget items; repeatable. ITEM is one of
                              io env clock rand declassify tool
                              fs fs:read fs:write fs:read:PATH fs:write:PATH
                              net net:HOST net:HOST:PORT (TCP)
                              net:udp net:udp:HOST net:udp:HOST:PORT (UDP)
                              ffi ffi:MODULE
                              each with an optional @N: at most N uses
  --timeout D                 stop the run after D (e.g. 10s, 2m), above zero
  --max-memory-mb N           stop the run past N MB of memory, at least 16
                              (default 1024: a run and each program eval grades)
  --no-memory-limit           no memory bound: the run may use what the machine gives
  --confine strict            granted ffi modules widen nothing
  --no-confine                ask the operating system for nothing
  --require-confinement L     refuse to run below level L (full or partial)
  --receipts DIR              write the receipt in DIR (default: $SABLINE_RECEIPTS,
                              else $XDG_STATE_HOME/sabline/receipts or
                              ~/.local/state/sabline/receipts; on macOS and Windows
                              the user's configuration directory)

Other commands:
  sabline audit [--json] PROGRAM.vel [--allow ...] [--confine strict]
      relative paths in the budget are read against the program's directory,
      where the safe command it prints runs
  sabline os-policy [--allow ...] [--confine strict] [--json]
  sabline os-policy --enforces [--json]
  sabline doctor [--json]
  sabline report [--md FILE] [--html FILE] REPORT.json...
      renders kernel reports (tests/confine/kernel-GOOS.json, one per system)
      with the enforcement table and the evidence of each: Markdown to
      standard output, or to --md FILE, and one HTML page to --html FILE
  sabline report diff OLD.json NEW.json
      what changed between two kernel reports of one system; exits 1 (E332)
      when NEW regressed: a target refused before and not now, a target
      gone, an enforcement cell whose evidence got worse
  sabline eval DIR [--allow ...] [--timeout D] [--max-memory-mb N | --no-memory-limit]
               [--confine strict] [--require-confinement L] [--receipts DIR] [--json]
      grades each PROGRAM.vel in DIR that has a PROGRAM.out beside it: PASS
      when it prints exactly PROGRAM.out; --timeout is 10s unless given
  sabline eval --confinement-probe [--json]
  sabline serve --import-root DIR [--listen ADDR] [--token-file FILE] [--allow-origin ORIGIN]
               [--queue N] [--workers N]
               [--allow ...] [--confine strict] [--require-confinement L] [--timeout D]
               [--max-memory-mb N] [--receipts DIR]
               [--tenants FILE] [--receipts-url URL] [--replica ID] [--store-agent PATH]
               [--ship-every D] [--ready-max-lag D]
      runs programs clients send over HTTP, and MCP at /mcp (docs/serve.md); one
      replica of a fleet with --receipts-url (docs/scale.md)
  sabline mcp --import-root DIR [the flags of serve but --listen, --token-file, --tenants and a fleet's]
      an MCP server on standard input and output (docs/mcp.md)
  sabline receipts list [--receipts DIR | --receipts-url URL [--tenant NAME]] [--json]
  sabline receipts show RUN-ID|last [--receipts DIR | --receipts-url URL [--tenant NAME]]
      RUN-ID is a run id or a prefix of one; last is the newest run; standard
      error says which fields the worker reported, and when they are testimony
  sabline receipts diff [--receipts DIR]
      levels the supervisor saw, and grants the workers reported using, each
      compared with its like
  sabline replay RECEIPT [--receipts DIR] [run flags, to narrow] (docs/language.md)
  sabline modules
  sabline version

Exit status: 0 the program ran to its end; 1 it failed or was refused an
effect; 2 the command line was wrong; 3 refused by --require-confinement;
124 timeout; 125 memory limit; 126 the worker crashed; 128+N the worker was
killed by signal N. docs/errors.md lists every error code.
`

// terminalSafe escapes what a terminal could take for a command; see
// codes.TerminalSafe. Every line a command prints that can hold text a
// program chose (a message, a path, a receipt field) goes through it; the
// program's own standard output does not: that is the program's output.
func terminalSafe(s string) string { return codes.TerminalSafe(s) }
