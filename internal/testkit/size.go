package testkit

import (
	"os"
	"testing"
)

// FullEnv is the environment variable that, set to 1, runs the tests that
// generate their cases (the property tests, the fleet) at their full size.
// By default they run at a size that keeps `go test ./...` within minutes
// on a two-core machine; CI's weekly job and bench/ run the full size.
const FullEnv = "SABLINE_FULL"

// Full reports whether FullEnv asks for the full size.
func Full() bool { return os.Getenv(FullEnv) == "1" }

// Size is how many cases of something a test makes: small by default, full
// when FullEnv is 1. It logs which it chose, so that a run says what it
// covered.
func Size(t testing.TB, what string, small, full int) int {
	t.Helper()
	if Full() {
		t.Logf("%s: %d (the full size, %s=1)", what, full, FullEnv)
		return full
	}
	t.Logf("%s: %d (%s=1 runs %d)", what, small, FullEnv, full)
	return small
}
