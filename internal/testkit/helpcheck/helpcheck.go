// Package helpcheck holds the checks of a command's help that the tests
// of the sabline command (cli) and of its doors (cli/doorcmd) share: that
// --help, -h and help NAME print one usage naming the flags the parser
// takes, and that a doc's table of a command's flags is that flag set.
package helpcheck

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Main runs a command line in process and returns its status and what it
// wrote on standard output and standard error.
type Main func(args ...string) (status int, stdout, stderr string)

var flagLine = regexp.MustCompile(`(?m)^  --([a-z0-9-]+)`)

// Command checks the help of the command name (as sabline help takes
// it): CMD --help, CMD -h and help NAME print the same usage, on standard
// output, exit 0, and it names the flags bogus's E301 lists (bogus is the
// command line with a flag the command does not take, last). It returns
// the usage.
func Command(t *testing.T, main Main, name string, bogus []string) string {
	t.Helper()
	cmd := bogus[:len(bogus)-1]
	var first string
	for _, args := range [][]string{
		append(slices.Clone(cmd), "--help"),
		append(slices.Clone(cmd), "-h"),
		append([]string{"help"}, strings.Fields(name)...),
	} {
		status, out, errOut := main(args...)
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
	_, _, errOut := main(bogus...)
	_, list, ok := strings.Cut(errOut, "takes no such flag (")
	list, _, _ = strings.Cut(list, ")")
	if !ok {
		t.Fatalf("sabline %s: %q, want E301 naming the flags", strings.Join(bogus, " "), errOut)
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
		t.Errorf("sabline help %s shows the flags %v; the parser takes %v", name, shown, parsed)
	}
	return first
}

// DocTable is a doc's table of a command's flags: the first Markdown
// table whose first column is headed "flag".
type DocTable struct {
	Doc   string        // beneath the repository's root
	Of    string        // what the table lists, for the messages
	Flags *flag.FlagSet // the flag set it lists
	Whole bool          // every flag of the set is in the table; else prose names some
}

var (
	docFlag  = regexp.MustCompile("`--([a-z0-9-]+)[^`]*`")
	anyFlag  = regexp.MustCompile(`--([a-z][a-z0-9-]+)`)
	tableRow = regexp.MustCompile(`^\|([^|]*)\|`)
)

// DocFlags checks d against its flag set: a whole table names every flag
// of the set and no other; prose names only flags the command takes. root
// is the repository's root.
func DocFlags(t *testing.T, root string, d DocTable) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(d.Doc)))
	if err != nil {
		t.Fatal(err)
	}
	var named []string
	if d.Whole {
		var ok bool
		if named, ok = flagTable(string(data)); !ok || len(named) == 0 {
			t.Errorf("%s: no table of flags (a first column headed flag)", d.Doc)
			return
		}
	} else {
		for _, m := range anyFlag.FindAllStringSubmatch(string(data), -1) {
			named = append(named, m[1])
		}
	}
	for _, p := range compareFlags(named, d.Flags, d.Whole) {
		t.Errorf("%s: its flags of %s %s", d.Doc, d.Of, p)
	}
}

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
		fs.VisitAll(func(f *flag.Flag) {
			if !slices.Contains(named, f.Name) {
				problems = append(problems, "does not name --"+f.Name+", which it takes")
			}
		})
	}
	return problems
}

// Placeholders checks that in usage, the help of the command name, each
// flag of closed (a flag name and the words of the closed set it takes)
// shows a placeholder that names what to give, never one of its words in
// capitals: --confine STRICT, typed as a help showed it, was refused.
func Placeholders(t *testing.T, name, usage string, closed map[string][]string) {
	t.Helper()
	for flagName, words := range closed {
		_, rest, ok := strings.Cut(usage, "\n  --"+flagName+" ")
		if !ok {
			continue
		}
		ph, _, _ := strings.Cut(rest, "\n")
		if slices.Contains(words, strings.ToLower(ph)) {
			t.Errorf("sabline %s --help shows --%s %s: one of its words in capitals, "+
				"which it refuses; a placeholder names what to give", name, flagName, ph)
		}
	}
}
