package guard

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the table of credential locations in docs/language.md from the code")

// TestCredentialsTable checks that the table of credential locations in
// docs/language.md is the one Markdown renders from the table the runtime
// checks.
func TestCredentialsTable(t *testing.T) {
	const begin, end = "<!-- credentials: generated from guard's table; go test ./guard checks it -->\n", "<!-- end credentials -->"
	path := filepath.Join("..", "docs", "language.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), begin)
	table, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated table of credential locations", path)
	}
	want := string(Markdown())
	if *update {
		if err := os.WriteFile(path, []byte(before+begin+want+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if table != want {
		t.Errorf("the table in %s differs from the code; run go test ./guard -run TestCredentialsTable -update\ngot:\n%s\nwant:\n%s", path, table, want)
	}
}
