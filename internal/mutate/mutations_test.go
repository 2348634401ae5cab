package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryMutationApplies: each named mutation's Old text is in its file
// exactly once, so a change that moves the code a mutation breaks fails
// here, in go test ./..., not an hour into a mutation run. A text found
// twice or not at all is named with its mutation.
func TestEveryMutationApplies(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, m := range mutations {
		b, err := os.ReadFile(filepath.Join(root, m.File))
		if err != nil {
			t.Errorf("%s: %v", m.Name, err)
			continue
		}
		if n := strings.Count(string(b), m.Old); n != 1 {
			t.Errorf("%s: its Old text is in %s %d times, want once", m.Name, m.File, n)
		}
	}
	if len(mutations) == 0 {
		t.Fatal("no mutations")
	}
}

// TestRanNoTest: a command whose every passing package ran no test is
// told apart from one that ran some, so that a -run pattern naming a test
// that moved is an error of the list, not a survivor.
func TestRanNoTest(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want bool
	}{
		{name: "no test in its one package", out: "ok  \tm/internal/run\t0.1s [no tests to run]\n", want: true},
		{name: "tests ran", out: "=== RUN   TestRefusal\n--- PASS: TestRefusal\nok  \tm/internal/worker\t0.2s\n"},
		{name: "one of two packages ran some",
			out: "ok  \tm/a\t0.1s [no tests to run]\nok  \tm/b\t0.3s\n"},
		{name: "a failure is not this", out: "--- FAIL: TestX\nFAIL\tm/a\t0.1s\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ranNoTest([]byte(tt.out)); got != tt.want {
				t.Errorf("ranNoTest = %v, want %v", got, tt.want)
			}
		})
	}
}
