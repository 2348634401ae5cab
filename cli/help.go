package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/codes"
)

// The help of every command is made from the flag set its parser reads
// (helpTopic.flags): a flag, its placeholder, its default and its usage
// are written once, where the command declares the flag, and `sabline
// COMMAND --help`, `sabline help COMMAND` and the docs' flag lists
// (TestDocFlags) are all held to that one table.

// helpTopic is the help of one command: how it is called, what it does,
// and the flag set its parser reads.
type helpTopic struct {
	name     string               // as typed after sabline: "serve", "receipts list"
	short    string               // one line, for the general usage's list of commands
	synopsis string               // the command line, after "usage: "
	about    string               // what it does
	flags    func() *flag.FlagSet // the command's own flag set; nil, or returning nil, for none
}

// setOf turns a command's flag-set constructor into helpTopic.flags.
func setOf[T any](f func() (*flag.FlagSet, T)) func() *flag.FlagSet {
	return func() *flag.FlagSet { fs, _ := f(); return fs }
}

// runAbout is what a run does, and the items --allow takes.
const runAbout = `Runs PROGRAM.vel under the budget the --allow flags grant. Each effect the
program attempts is checked against the budget; under it the operating
system is asked to hold the same budget before the first statement. The
flags go before or after the program; the program's own arguments after --.

An --allow ITEM is one of
  io env clock rand declassify tool
  fs fs:read fs:write fs:read:PATH fs:write:PATH
  net net:HOST net:HOST:PORT (TCP)
  net:udp net:udp:HOST net:udp:HOST:PORT (UDP)
  ffi ffi:MODULE
each with an optional @N: at most N uses; several are given comma-separated.

Receipts go to --receipts DIR, else $SABLINE_RECEIPTS, else
$XDG_STATE_HOME/sabline/receipts or ~/.local/state/sabline/receipts (on macOS
and Windows, beneath the user's configuration directory).`

// exitStatusText is the end of the general usage.
const exitStatusText = `Exit status: 0 the program ran to its end; 1 it failed or was refused an
effect; 2 the command line was wrong; 3 refused by --require-confinement;
4 the run ran, but its receipt could not be finished; 124 timeout; 125
memory limit; 126 the worker crashed; 128+N the worker was killed by signal
N. docs/errors.md lists every error code.`

// helpTopics are the commands' help; the general usage lists, in this
// order, those with a short line: one for each of commands (cli.go), the
// first of a command's topics (TestHelpTopics).
var helpTopics = []helpTopic{
	{name: "run", short: "run a program under a budget (the command when none is named)",
		synopsis: "sabline [run] [flags] PROGRAM.vel [-- ARGS...]", about: runAbout,
		flags: setOf(runFlagSet)},
	{name: "audit", short: "what a program declares, and what each system would hold of it",
		synopsis: "sabline audit [flags] PROGRAM.vel",
		about: "Says what budget PROGRAM.vel declares (its # allow: line), the command " +
			"that runs it safely, and what each system's kernel would hold of it; nothing " +
			"runs. The last line is the level a run gets on this machine, as this user, or " +
			"the refusal it meets before anything runs (E329). Relative paths in the budget " +
			"are read against the program's directory, where the safe command it prints runs.",
		flags: setOf(auditFlagSet)},
	{name: "os-policy", short: "the policy the operating system is asked to hold for a budget",
		synopsis: "sabline os-policy [flags]",
		about: "Prints the policy the operating system is asked to hold for the budget --allow " +
			"gives, and its digest; with --enforces (and no budget), what each system's kernel " +
			"holds for each budget item (docs/os-enforces.md).",
		flags: setOf(osPolicyFlagSet)},
	{name: "doctor", short: "what this machine's kernel offers, and the level a run gets here",
		synopsis: "sabline doctor [flags]",
		about: "Says what this machine's kernel offers (Landlock, seccomp), what this process is " +
			"already under, the level a run under the default budget gets here, measured in " +
			"a confined worker, what holds a default run's memory limit here, and what a run " +
			"reads of the register of Sabline's locations on this machine, with advice.",
		flags: setOf(doctorFlagSet)},
	{name: "report", short: "render kernel reports, or compare two (report diff)",
		synopsis: "sabline report [flags] REPORT.json...",
		about: "Renders kernel reports (tests/confine/kernel-GOOS.json, one per system) with the " +
			"enforcement table and the evidence of each: Markdown to standard output, or to " +
			"--md FILE, and one HTML page to --html FILE.",
		flags: func() *flag.FlagSet { fs, _, _ := reportFlagSet(); return fs }},
	{name: "report diff", synopsis: "sabline report diff OLD.json NEW.json",
		about: "What changed between two kernel reports of one system; exits 1 (E332) when NEW " +
			"regressed: a target refused before and not now, a target gone, an enforcement cell " +
			"whose evidence got worse."},
	{name: "eval", short: "grade a directory of programs against their expected output",
		synopsis: "sabline eval [flags] DIR\n       sabline eval --confinement-probe [--json]",
		about: "Grades each PROGRAM.vel in DIR that has a PROGRAM.out beside it: PASS when it " +
			"prints exactly PROGRAM.out. --timeout is " + defaultEvalTimeout.String() + " unless " +
			"given; eval never runs unconfined (it refuses --no-confine). With " +
			"--confinement-probe, what a confined worker could and could not do here.",
		flags: setOf(evalFlagSet)},
	{name: "serve", short: "run programs clients send over HTTP, and MCP at /mcp",
		synopsis: "sabline serve --import-root DIR [flags]",
		about: "Runs programs clients send over HTTP, and MCP at /mcp (docs/serve.md), until " +
			"SIGINT or SIGTERM; with --receipts-url, one replica of a fleet (docs/scale.md). An " +
			"address other than loopback needs --token-file or --tenants.",
		flags: doorFlagSet("serve")},
	{name: "mcp", short: "an MCP server on standard input and output",
		synopsis: "sabline mcp --import-root DIR [flags]",
		about: "An MCP server on standard input and output (docs/mcp.md): the tools run and " +
			"audit, and the receipts of its runs as resources. It starts no worker until its " +
			"first run.",
		flags: doorFlagSet("mcp")},
	{name: "receipts list", short: "list, show and compare the receipts of runs",
		synopsis: "sabline receipts list [flags]",
		about: "Lists the receipts with their run ids; a status that is testimony (the worker " +
			"reported it, and the program could have forged it) is marked *. A file in the " +
			"directory (or an object in the store) that is not a receipt is named on standard " +
			"error and passed over.",
		flags: func() *flag.FlagSet { fs, _ := receiptsFlagSet("list"); return fs }},
	{name: "receipts show", synopsis: "sabline receipts show [flags] RUN-ID|last",
		about: "Prints one receipt: RUN-ID is a run id or a prefix of one; last is the newest " +
			"run. Standard error says which fields the worker reported, and when they are " +
			"testimony.",
		flags: func() *flag.FlagSet { fs, _ := receiptsFlagSet("show"); return fs }},
	{name: "receipts diff", synopsis: "sabline receipts diff [flags]",
		about: "Compares the levels the supervisor saw, and the grants the workers reported " +
			"using, each with its like; exits 1 when a run had a weaker level than an earlier " +
			"run of the same program.",
		flags: func() *flag.FlagSet { fs, _ := receiptsFlagSet("diff"); return fs }},
	{name: "replay", short: "run a receipt's program again, and compare the two runs",
		synopsis: "sabline replay [flags] RECEIPT",
		about: "Runs the program of RECEIPT (a receipt file, a run id, a prefix of one, or last) " +
			"again, with its arguments, under its budget and limits, and prints the receipts diff " +
			"of the two runs (docs/language.md). Refused (E334) when the program's bytes are not " +
			"those the receipt recorded; a flag may narrow the run and never widen it (E328). A " +
			"receipt file named by its path grants only what --allow and " +
			"--lend-credential name (E328 without --allow).",
		flags: setOf(replayFlagSet)},
	{name: "modules", short: "the host modules this build registers", synopsis: "sabline modules",
		about: "Lists the host modules this build registers (what ffi:MODULE can grant), one a " +
			"line."},
	{name: "version", short: "the version of this build", synopsis: "sabline version",
		about: "Prints the version of this build."},
	{name: "help", short: "the general usage, or a command's own help",
		synopsis: "sabline help [COMMAND]",
		about: "Prints the general usage, or COMMAND's own help: what it does and each flag " +
			"with its value, default and use. sabline COMMAND --help (or -h) is the same."},
}

// noSuchHelp is the E301 of sabline help naming no command (%s: the name
// asked for, then the commands).
const noSuchHelp = "help %s: no such command: the commands are %s"

// helpCmd: sabline help [COMMAND]: the general usage, or the command's
// own help; -h and --help stand for no command.
func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprint(stdout, generalUsage())
		return 0
	}
	return printHelp(stdout, stderr, strings.Join(args, " "))
}

// printHelp writes the help of the command name ("serve", "receipts",
// "receipts list") to stdout and returns 0: the topic of that name and
// those beneath it (receipts: list, show and diff). A name no topic has
// is E301 on stderr.
func printHelp(stdout, stderr io.Writer, name string) int {
	if cmd, _, _ := strings.Cut(name, " "); isDoor(cmd) && cmdline.Linked == nil {
		return startDoor([]string{"help", name}, nil, stdout, stderr) // its flags are there
	}
	if name == "sabline" { // the flag set of a run
		name = "run"
	}
	var b strings.Builder
	for _, t := range helpTopics {
		if t.name == name || strings.HasPrefix(t.name, name+" ") {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			writeTopic(&b, t)
		}
	}
	if b.Len() == 0 {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, noSuchHelp, name,
			strings.Join(commands, ", ")), "")
	}
	fmt.Fprint(stdout, b.String())
	return 0
}

// writeTopic writes one command's help: its synopsis, what it does, and
// each of its flags with its placeholder, default and usage.
func writeTopic(b *strings.Builder, t helpTopic) {
	fmt.Fprintf(b, "usage: %s\n\n", t.synopsis)
	b.WriteString(wrap(t.about, "", cmdline.HelpWidth))
	if t.flags != nil {
		if fs := t.flags(); fs != nil {
			writeFlags(b, "Flags", fs)
		}
	}
}

// writeFlags writes, under the heading, each flag of fs with its
// placeholder, default and usage.
func writeFlags(b *strings.Builder, heading string, fs *flag.FlagSet) {
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			b.WriteString("\n" + heading + ":\n")
			first = false
		}
		b.WriteString("  " + flagSynopsis(f) + "\n")
		_, use := flag.UnquoteUsage(f)
		if def := shownDefault(f); def != "" {
			use += " (default " + def + ")"
		}
		b.WriteString(wrap(use, "        ", cmdline.HelpWidth))
	})
}

// flagSynopsis is how a flag is written in its help: --name and, unless
// it is a switch, its placeholder.
func flagSynopsis(f *flag.Flag) string {
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		return "--" + f.Name
	}
	return "--" + f.Name + " " + cmdline.Placeholder(f)
}

// shownDefault is a flag's default as its help shows it: "" for one that
// means none (no value, zero, false, -1).
func shownDefault(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "0s", "false", "-1":
		return ""
	}
	return f.DefValue
}

// generalUsage is what sabline help prints: how a program is run, with
// a run's flags and the grammar of its budget, and each command with one
// line of what it does.
func generalUsage() string {
	var b strings.Builder
	b.WriteString("usage: sabline [run] [flags] PROGRAM.vel [-- ARGS...]\n" +
		"       sabline COMMAND [flags] [ARGS...]\n\n")
	b.WriteString(wrap(runAbout, "", cmdline.HelpWidth))
	fs, _ := runFlagSet()
	writeFlags(&b, "Flags of a run", fs)
	b.WriteString("\nCommands:\n")
	for _, t := range helpTopics {
		if t.short != "" {
			name, _, _ := strings.Cut(t.name, " ")
			fmt.Fprintf(&b, "  %-10s %s\n", name, t.short)
		}
	}
	b.WriteString("\n" + wrap(helpOfCommand, "", cmdline.HelpWidth) + "\n" + exitStatusText + "\n")
	return b.String()
}

// helpOfCommand ends the list of commands in the general usage.
const helpOfCommand = "sabline help COMMAND, or sabline COMMAND --help, shows what the command " +
	"does and each of its flags, with its default."

// wrap fills text to width, each line beginning with indent; lines of
// text that begin with a space (a list) and blank lines are kept as they
// are.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	var line string
	flush := func() {
		if line != "" {
			b.WriteString(indent + line + "\n")
			line = ""
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if l == "" || strings.HasPrefix(l, " ") {
			flush()
			b.WriteString(strings.TrimRight(indent+l, " ") + "\n")
			continue
		}
		for _, w := range strings.Fields(l) {
			switch {
			case line == "":
				line = w
			case len(indent)+len(line)+1+len(w) > width:
				flush()
				line = w
			default:
				line += " " + w
			}
		}
	}
	flush()
	return b.String()
}

// parseFailed reports an error of cmdline.ParseInterspersed and returns
// the exit status: the command's own help on standard output for --help,
// E301 otherwise.
func parseFailed(err error, stdout, stderr io.Writer) int {
	if h, ok := errors.AsType[*cmdline.HelpRequest](err); ok {
		return printHelp(stdout, stderr, h.Command)
	}
	return cmdline.Report(stderr, err, "")
}

// noArgs is the command line of a command that takes no flags and no
// arguments: anything given is E301.
func noArgs(name string, args []string, stdout, stderr io.Writer) (int, bool) {
	positional, rest, err := cmdline.ParseInterspersed(cmdline.NewFlagSet(name), args)
	if err != nil {
		return parseFailed(err, stdout, stderr), false
	}
	if extra := append(positional, rest...); len(extra) > 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "sabline %s takes no arguments, got %s", name,
				strings.Join(extra, " ")), ""), false
	}
	return 0, true
}
