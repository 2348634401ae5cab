package receipt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// languageReceipts is the section of docs/language.md that is a receipt's
// reference: its table of fields, each with where it comes from.
func languageReceipts(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "language.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## Receipts\n")
	if !ok {
		t.Fatal("docs/language.md has no section Receipts")
	}
	sec, _, _ = strings.Cut(sec, "\n### Replaying a run")
	return sec
}

// named reports whether doc names the field or value name in backquotes:
// `name`, or `name: ...` (`knockout: true`).
func named(doc, name string) bool {
	return strings.Contains(doc, "`"+name+"`") || strings.Contains(doc, "`"+name+":")
}

// jsonNames are the JSON names of the fields of the struct type t.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// TestReceiptFieldsDocumented: the receipts section of docs/language.md
// names every field a receipt can hold, at its top and in each part the
// table describes, and every outcome status a receipt can carry
// (unfinished, E327, among them), so that a reader of a receipt finds
// each of its fields there. Its control: a name no receipt holds is not
// found there.
func TestReceiptFieldsDocumented(t *testing.T) {
	doc := languageReceipts(t)
	for _, v := range []any{Receipt{}, Build{}, ProgramInfo{}, RunParameters{}, Observed{},
		Reported{}, Outcome{}, Timings{}, WorkerTimings{}, Platform{}} {
		ty := reflect.TypeOf(v)
		for _, name := range jsonNames(ty) {
			if !named(doc, name) {
				t.Errorf("docs/language.md, Receipts, does not name %s's field %q", ty.Name(), name)
			}
		}
	}
	for _, s := range append(append([]string(nil), Statuses...), StatusUnfinished) {
		if !named(doc, s) {
			t.Errorf("docs/language.md, Receipts, does not name the outcome status %q", s)
		}
	}
	if named(doc, "no_such_receipt_field") {
		t.Error("the control: a name no receipt holds is found in docs/language.md")
	}
}
