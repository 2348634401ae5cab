package budget_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
)

// FuzzParseItem checks that ParseItem, for any item and working directory,
// either refuses the item with an *ItemError that names it, or returns an
// item whose canonical form parses back to the same item, alone and as a
// budget. The seeds are in
// testdata/fuzz/FuzzParseItem; run it with
//
//	go test -run XXX -fuzz FuzzParseItem -fuzztime 20s ./budget
func FuzzParseItem(f *testing.F) {
	f.Fuzz(func(t *testing.T, s, cwd string) {
		if strings.ContainsRune(cwd, 0) {
			t.Skip("no working directory holds a NUL byte")
		}
		it, err := budget.ParseItem(s, cwd)
		if err != nil {
			var ie *budget.ItemError
			if !errors.As(err, &ie) || ie.Item != s || ie.Reason == "" {
				t.Fatalf("ParseItem(%q, %q): %v (%T), want an *ItemError naming the item, with a reason", s, cwd, err, err)
			}
			return
		}
		again, err := budget.ParseItem(it.String(), cwd)
		if err != nil || again != it {
			t.Fatalf("ParseItem(%q, %q) = %#v, which prints as %q and parses back as %#v, %v", s, cwd, it, it.String(), again, err)
		}
		// And read as a budget, as a receipt's budget is read back by a
		// replay: the one item, not others split from it.
		b, err := budget.Parse([]string{it.String()}, cwd)
		if err != nil || len(b.Items) != 1 || b.Items[0] != it {
			t.Fatalf("ParseItem(%q, %q) = %#v, which prints as %q and reads back as the budget %q, %v", s, cwd, it, it.String(), b.String(), err)
		}
	})
}
