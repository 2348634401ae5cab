package testkit

import (
	"os"
	"testing"
)

// EndChildBeforeCoverage makes a child process a test runs under Landlock
// or a filter exit as soon as its test ends, 0 when it passed and 1 when it
// failed, in a test binary built for coverage (as a mutation run builds
// it). Such a binary writes its counters as it exits, in a temporary
// directory the ruleset keeps it from, and the child would fail for that
// after its checks passed. The child's output is written as it goes, so
// nothing of it is lost. In a binary built without coverage it does
// nothing.
func EndChildBeforeCoverage(t *testing.T) {
	if testing.CoverMode() == "" {
		return
	}
	t.Cleanup(func() {
		if t.Failed() {
			os.Exit(1)
		}
		os.Exit(0)
	})
}
