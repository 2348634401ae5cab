package helpcheck

import (
	"flag"
	"slices"
	"testing"
)

// TestCompareFlags: the comparison fails a doc both ways: a flag the
// command does not take, and a flag of the command the doc leaves out.
func TestCompareFlags(t *testing.T) {
	doc := "| flag | what |\n|---|---|\n| `--listen ADDR`, `--no-such D` | x |\n\nafter\n"
	named, ok := flagTable(doc)
	if !ok || !slices.Equal(named, []string{"listen", "no-such"}) {
		t.Fatalf("flagTable: %v %v, want [listen no-such]", named, ok)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
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
