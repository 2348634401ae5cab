package cmdline

import (
	"os"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestMain runs the package's tests apart: the stores, tokens and runs
// directories they make (and the sabline processes they start, which
// inherit it) join a register of their own, never this machine's.
func TestMain(m *testing.M) {
	os.Exit(testkit.RunApart(m))
}
