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
