package probe

import (
	"os"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestMain runs the tests apart from the user's own files: the package
// links the supervisor, and a probe's runs join a register (none of its
// tests runs one now).
func TestMain(m *testing.M) { os.Exit(testkit.RunApart(m)) }
