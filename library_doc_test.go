package sabline_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLibraryDocExamples: each Example function docs/library.md names is
// one of this package's or door's, so that the page's examples are run.
func TestLibraryDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "library.md"))
	if err != nil {
		t.Fatal(err)
	}
	var code strings.Builder
	files, err := filepath.Glob("example*_test.go") // example_linux_test.go too
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, filepath.Join("door", "example_test.go")) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code.Write(data)
	}
	names := regexp.MustCompile(`\bExample[A-Za-z_]+`).FindAllString(string(doc), -1)
	if len(names) == 0 {
		t.Fatal("docs/library.md names no Example function")
	}
	for _, n := range names {
		if !strings.Contains(code.String(), "func "+n+"()") {
			t.Errorf("docs/library.md names %s, which no example_test.go has", n)
		}
	}
}
