package cli

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/internal/testkit/helpcheck"

	"github.com/sabline/sabline/cli/internal/cmdline"
	"github.com/sabline/sabline/codes"
)

// mainOut runs Main with args and returns its status and what it wrote.
func mainOut(args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = Main(args, strings.NewReader(""), &out, &errOut)
	return status, out.String(), errOut.String()
}

// TestHelpTopics: the general usage lists each command of commands once,
// and every help topic is a command's.
func TestHelpTopics(t *testing.T) {
	var listed []string
	for _, tp := range helpTopics {
		top, _, _ := strings.Cut(tp.name, " ")
		if !slices.Contains(commands, top) {
			t.Errorf("help topic %q is of no command (commands: %v)", tp.name, commands)
		}
		if tp.short != "" {
			listed = append(listed, top)
		}
		if tp.synopsis == "" || tp.about == "" {
			t.Errorf("help topic %q has no synopsis or no text", tp.name)
		}
	}
	got := slices.Sorted(slices.Values(listed))
	if want := slices.Sorted(slices.Values(commands)); !slices.Equal(got, want) {
		t.Errorf("the general usage lists %v, the commands are %v: "+
			"each needs one topic with a short line", got, want)
	}
}

// helpCases are the command lines of each command's help, and the flags
// its parser names when it is given one it does not take.
var helpCases = []struct {
	name  string   // as sabline help takes it
	bogus []string // a command line with a flag the command does not take
}{
	{"eval", []string{"eval", "--bogus"}},
	{"audit", []string{"audit", "--bogus"}},
	{"doctor", []string{"doctor", "--bogus"}},
	{"report", []string{"report", "--bogus"}},
	{"report diff", []string{"report", "diff", "--bogus"}},
	{"os-policy", []string{"os-policy", "--bogus"}},
	{"run", []string{"run", "--bogus"}},
	{"replay", []string{"replay", "--bogus"}},
	{"receipts list", []string{"receipts", "list", "--bogus"}},
	{"receipts show", []string{"receipts", "show", "--bogus"}},
	{"receipts diff", []string{"receipts", "diff", "--bogus"}},
	{"modules", []string{"modules", "--bogus"}},
	{"version", []string{"version", "--bogus"}},
}

// TestCommandHelp: sabline CMD --help, CMD -h and sabline help CMD print
// the same help, on standard output, exit 0; it names each flag the
// command's parser takes (as its E301 for a flag it does not take lists
// them) with its placeholder and default, and no other (helpcheck). The
// doors' commands are doorcmd's.
func TestCommandHelp(t *testing.T) {
	for _, c := range helpCases {
		t.Run(c.name, func(t *testing.T) {
			out := helpcheck.Command(t, mainOut, c.name, c.bogus)
			for _, l := range strings.Split(out, "\n") {
				if len(l) > cmdline.HelpWidth {
					t.Errorf("a line of %d columns, past %d: %q", len(l), cmdline.HelpWidth, l)
				}
			}
		})
	}
}

// TestGeneralHelp: sabline help, --help and -h print the general usage,
// which names every command; sabline help NAME for no command is E301
// naming them.
func TestGeneralHelp(t *testing.T) {
	var first string
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"help", "--help"}} {
		status, out, errOut := mainOut(args...)
		if status != 0 || errOut != "" {
			t.Errorf("sabline %s: status %d, stderr %q", strings.Join(args, " "), status, errOut)
		}
		if first == "" {
			first = out
		} else if out != first {
			t.Errorf("sabline %s printed another usage than sabline help", strings.Join(args, " "))
		}
	}
	for _, c := range commands {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(c) + ` `).MatchString(first) {
			t.Errorf("the general usage does not list %s:\n%s", c, first)
		}
	}
	status, out, errOut := mainOut("help", "nosuch")
	if status != 2 || out != "" || !strings.Contains(errOut, "E301: help nosuch: no such command") {
		t.Errorf("sabline help nosuch: status %d, stdout %q, stderr %q; want 2 and E301",
			status, out, errOut)
	}
	for _, c := range commands {
		if !strings.Contains(errOut, c) {
			t.Errorf("sabline help nosuch does not name the command %s: %s", c, errOut)
		}
	}
}

// TestHelpExitStatuses: the general usage's exit statuses name every
// status a code of codes.Codes ends a command with (a signal's as
// 128+N), so that a script's author reads each in sabline --help, as
// docs/errors.md lists them.
func TestHelpExitStatuses(t *testing.T) {
	status, out, _ := mainOut("--help")
	if status != 0 {
		t.Fatalf("sabline --help: status %d", status)
	}
	_, text, ok := strings.Cut(out, "Exit status:")
	if !ok {
		t.Fatalf("the general usage says nothing of the exit status:\n%s", out)
	}
	text = strings.Join(strings.Fields(text), " ")
	for _, c := range codes.Codes {
		want := strconv.Itoa(c.Exit) + " "
		if c.Exit == codes.ExitSignaled {
			want = "128+N "
		}
		if !strings.Contains(" "+text, " "+want) {
			t.Errorf("the general usage's exit statuses do not name %s's %q: %s",
				c.Code, strings.TrimSpace(want), text)
		}
	}
}

// flagUsage is the usage text help shows for the flag name, on one line.
func flagUsage(help, name string) string {
	_, rest, ok := strings.Cut(help, "\n  --"+name+" ")
	if !ok {
		_, rest, _ = strings.Cut(help, "\n  --"+name+"\n")
	}
	use, _, _ := strings.Cut(rest, "\n  --")
	return strings.Join(strings.Fields(use), " ")
}

// TestReplayHelpSaysTheReceiptsDefaults: sabline help replay says that
// each limit a replay takes from its receipt defaults to the receipt's,
// and shows none of a run's own defaults, which a replay does not take
// (a receipt of --max-memory-mb 2000 replays under 2000, not 1024; one
// of --require-confinement partial under partial). Its control: a run's
// help shows a run's defaults.
func TestReplayHelpSaysTheReceiptsDefaults(t *testing.T) {
	_, replay, _ := mainOut("help", "replay")
	_, runHelp, _ := mainOut("help", "run")
	for _, name := range []string{"timeout", "max-memory-mb", "confine", "require-confinement"} {
		use := flagUsage(replay, name)
		if !strings.Contains(use, "(default: the receipt's") {
			t.Errorf("sabline help replay, --%s: %q: says not that its default is the receipt's",
				name, use)
		}
		if strings.Contains(use, "this machine holds") || strings.Contains(use, "(default 1024") {
			t.Errorf("sabline help replay, --%s: %q: shows a run's default", name, use)
		}
	}
	for name, want := range map[string]string{"max-memory-mb": "(default 1024",
		"require-confinement": "(default: the level this machine holds"} {
		if use := flagUsage(runHelp, name); !strings.Contains(use, want) {
			t.Errorf("the control: sabline help run, --%s: %q, want %q", name, use, want)
		}
	}
}

// closedValues are the flags that take a word of a closed set, and the
// words, as each command checks them.
var closedValues = map[string][]string{"confine": {"strict"}}

// TestHelpPlaceholdersAreNotValues: a flag that takes a word of a closed
// set shows a placeholder that names what to give, never one of its
// words in capitals: --confine STRICT, typed as the help shows it, is
// refused (E301: the only value is strict). The control: the word
// itself is taken (os-policy --confine strict).
func TestHelpPlaceholdersAreNotValues(t *testing.T) {
	for _, c := range helpCases {
		status, out, _ := mainOut(append(c.bogus[:len(c.bogus)-1:len(c.bogus)-1], "--help")...)
		if status != 0 {
			t.Fatalf("sabline %s --help: status %d", c.name, status)
		}
		helpcheck.Placeholders(t, c.name, out, closedValues)
	}
	status, _, errOut := mainOut("os-policy", "--allow", "io", "--confine", "strict")
	if status != 0 {
		t.Errorf("the control: os-policy --confine strict: status %d, %s", status, errOut)
	}
}

// docFlagTables are the docs that list a run's flags, or name some; the
// doors' are doorcmd's.
func docFlagTables() []helpcheck.DocTable {
	run, _ := runFlagSet()
	return []helpcheck.DocTable{
		{Doc: "docs/language.md", Of: "a run", Flags: run, Whole: true},
		{Doc: "docs/tools.md", Of: "a run", Flags: run},
	}
}

// TestDocFlags: each doc's table of a command's flags names every flag
// the command's flag set has and no other; a doc that names flags in its
// prose names only flags the command takes.
func TestDocFlags(t *testing.T) {
	for _, d := range docFlagTables() {
		helpcheck.DocFlags(t, "..", d)
	}
}
