package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mainOut runs Main with args and returns its status and what it wrote.
func mainOut(args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	status = Main(args, strings.NewReader(""), &out, &errOut)
	return status, out.String(), errOut.String()
}

// flagNames are the flags of fs, sorted.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
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
	{"serve", []string{"serve", "--bogus"}},
	{"mcp", []string{"mcp", "--bogus"}},
	{"eval", []string{"eval", "--bogus"}},
	{"audit", []string{"audit", "--bogus"}},
	{"doctor", []string{"doctor", "--bogus"}},
	{"report", []string{"report", "--bogus"}},
	{"report diff", []string{"report", "diff", "--bogus"}},
	{"os-policy", []string{"os-policy", "--bogus"}},
	{"run", []string{"run", "--bogus"}},
	{"receipts list", []string{"receipts", "list", "--bogus"}},
	{"receipts show", []string{"receipts", "show", "--bogus"}},
	{"receipts diff", []string{"receipts", "diff", "--bogus"}},
	{"modules", []string{"modules", "--bogus"}},
	{"version", []string{"version", "--bogus"}},
}

// TestCommandHelp: sabline CMD --help, CMD -h and sabline help CMD print
// the same help, on standard output, exit 0; it names each flag the
// command's parser takes (as its E301 for a flag it does not take lists
// them) with its placeholder and default, and no other.
func TestCommandHelp(t *testing.T) {
	flagLine := regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`)
	for _, c := range helpCases {
		t.Run(c.name, func(t *testing.T) {
			cmd := c.bogus[:len(c.bogus)-1]
			var first string
			for _, args := range [][]string{
				append(slices.Clone(cmd), "--help"),
				append(slices.Clone(cmd), "-h"),
				append([]string{"help"}, strings.Fields(c.name)...),
			} {
				status, out, errOut := mainOut(args...)
				if status != 0 || errOut != "" {
					t.Errorf("sabline %s: status %d, stderr %q; want 0 and nothing",
						strings.Join(args, " "), status, errOut)
				}
				if !strings.HasPrefix(out, "usage: sabline ") {
					t.Errorf("sabline %s printed %q, want its usage", strings.Join(args, " "), out)
				}
				if first == "" {
					first = out
				} else if out != first {
					t.Errorf("sabline %s printed\n%s\nsabline %s --help printed\n%s",
						strings.Join(args, " "), out, strings.Join(cmd, " "), first)
				}
			}
			// The help's flags are the parser's: its E301 names them.
			_, _, errOut := mainOut(c.bogus...)
			_, list, ok := strings.Cut(errOut, "takes no such flag (")
			list, _, _ = strings.Cut(list, ")")
			if !ok {
				t.Fatalf("sabline %s: %q, want E301 naming the flags",
					strings.Join(c.bogus, " "), errOut)
			}
			var parsed []string
			if list != "it takes none" {
				for _, f := range strings.Split(strings.TrimPrefix(list, "it takes "), ", ") {
					parsed = append(parsed, strings.TrimPrefix(f, "--"))
				}
			}
			var shown []string
			for _, m := range flagLine.FindAllStringSubmatch(first, -1) {
				shown = append(shown, m[1])
			}
			if !slices.Equal(shown, parsed) {
				t.Errorf("sabline help %s shows the flags %v; the parser takes %v",
					c.name, shown, parsed)
			}
		})
	}
}

// TestHelpShowsPlaceholderAndDefault: serve's help shows the flags a
// terminal had no word of, each with its placeholder and default.
func TestHelpShowsPlaceholderAndDefault(t *testing.T) {
	_, out, _ := mainOut("help", "serve")
	for _, want := range []string{
		"  --max-idle N\n", "(default 1)",
		"  --idle-timeout DURATION\n", "(default 1m0s)",
		"  --receipts-url URL\n",
		"  --listen ADDRESS\n", "(default 127.0.0.1:8080)",
		"  --allow-origin ORIGIN\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sabline help serve does not show %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > helpWidth {
			t.Errorf("a line of %d columns, past %d: %q", len(l), helpWidth, l)
		}
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

// docFlagTable is a doc's table of a command's flags: the first Markdown
// table whose first column is headed "flag".
type docFlagTable struct {
	doc   string               // beneath the repository's root
	of    string               // what the table lists, for the messages
	flags func() *flag.FlagSet // the flag set it lists
	whole bool                 // every flag of the set is in the table
}

// docFlagTables are the docs that list a command's flags.
var docFlagTables = []docFlagTable{
	{"docs/serve.md", "sabline serve", setOf(serveFlagSet), true},
	{"docs/mcp.md", "sabline mcp", setOf(mcpFlagSet), true},
	{"docs/language.md", "a run", setOf(runFlagSet), true},
	{"docs/scale.md", "a replica of a fleet (sabline serve)", func() *flag.FlagSet {
		fs := newFlagSet("serve")
		new(fleetFlags).register(fs)
		return fs
	}, true},
}

// docFlagMentions are docs whose prose names flags of one command: each
// flag named must be one the command takes.
var docFlagMentions = []docFlagTable{
	{"docs/tools.md", "a run", setOf(runFlagSet), false},
}

var (
	docFlag  = regexp.MustCompile("`--([a-z0-9-]+)[^`]*`")
	anyFlag  = regexp.MustCompile(`--([a-z][a-z0-9-]+)`)
	tableRow = regexp.MustCompile(`^\|([^|]*)\|`)
)

// flagTable returns the flags the first cell of each row of text's first
// table headed "flag" names, in order, and whether there is one.
func flagTable(text string) ([]string, bool) {
	var names []string
	in, found := false, false
	for _, l := range strings.Split(text, "\n") {
		m := tableRow.FindStringSubmatch(l)
		switch {
		case m == nil:
			if in {
				return names, true
			}
		case !found && strings.TrimSpace(m[1]) == "flag":
			in, found = true, true
		case in:
			for _, f := range docFlag.FindAllStringSubmatch(m[1], -1) {
				names = append(names, f[1])
			}
		}
	}
	return names, found
}

// compareFlags says how the flags a doc names differ from fs's, both ways
// when whole.
func compareFlags(named []string, fs *flag.FlagSet, whole bool) []string {
	var problems []string
	for _, n := range named {
		if fs.Lookup(n) == nil {
			problems = append(problems, "names --"+n+", which it does not take")
		}
	}
	if whole {
		for _, n := range flagNames(fs) {
			if !slices.Contains(named, n) {
				problems = append(problems, "does not name --"+n+", which it takes")
			}
		}
	}
	return problems
}

// TestDocFlags: each doc's table of a command's flags names every flag
// the command's flag set has and no other; a doc that names flags in its
// prose names only flags the command takes.
func TestDocFlags(t *testing.T) {
	for _, d := range append(slices.Clone(docFlagTables), docFlagMentions...) {
		data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(d.doc)))
		if err != nil {
			t.Fatal(err)
		}
		var named []string
		if d.whole {
			var ok bool
			if named, ok = flagTable(string(data)); !ok || len(named) == 0 {
				t.Errorf("%s: no table of flags (a first column headed flag)", d.doc)
				continue
			}
		} else {
			for _, m := range anyFlag.FindAllStringSubmatch(string(data), -1) {
				named = append(named, m[1])
			}
		}
		for _, p := range compareFlags(named, d.flags(), d.whole) {
			t.Errorf("%s: its flags of %s %s", d.doc, d.of, p)
		}
	}
}

// TestCompareFlags: the comparison fails a doc both ways: a flag the
// command does not take, and a flag of the command the doc leaves out.
func TestCompareFlags(t *testing.T) {
	doc := "| flag | what |\n|---|---|\n| `--listen ADDR`, `--no-such D` | x |\n\nafter\n"
	named, ok := flagTable(doc)
	if !ok || !slices.Equal(named, []string{"listen", "no-such"}) {
		t.Fatalf("flagTable: %v %v, want [listen no-such]", named, ok)
	}
	fs := newFlagSet("x")
	fs.String("listen", "", "")
	fs.String("token-file", "", "")
	got := compareFlags(named, fs, true)
	want := []string{"names --no-such, which it does not take",
		"does not name --token-file, which it takes"}
	if !slices.Equal(got, want) {
		t.Errorf("compareFlags: %q, want %q", got, want)
	}
	if got := compareFlags(named[:1], fs, false); len(got) != 0 {
		t.Errorf("compareFlags of a flag the command takes, not whole: %q, want nothing", got)
	}
}

// docCancelMessage is the message docs/mcp.md says a cancelled run ends
// with: the quoted text after "with the message".
func docCancelMessage(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(data)), " ")
	quoted := regexp.MustCompile(`ends ` + "`E307`" + ` with the message "([^"]+)"`)
	m := quoted.FindStringSubmatch(text)
	if m == nil {
		t.Fatal(`docs/mcp.md no longer says: ends E307 with the message "..."`)
	}
	return m[1]
}
