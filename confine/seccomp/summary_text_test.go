package seccomp

import "testing"

// TestSummaryTextIsCurrent checks that the constant the enforcement table
// quotes is what Summary makes from the rules and the system call tables
// now: a rule or a table changed without `go generate ./confine/seccomp`
// fails here.
func TestSummaryTextIsCurrent(t *testing.T) {
	if got := Summary(); SummaryText != got {
		t.Errorf("SummaryText is stale: go generate ./confine/seccomp\n got: %s\nwant: %s", SummaryText, got)
	}
}
