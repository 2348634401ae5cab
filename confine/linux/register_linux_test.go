package linux_test

import (
	"os"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestMain runs the package's tests with a register of their own: the
// sabline commands they start (devices_cmd_linux_test.go) register their
// runs directories there, never in this machine's.
func TestMain(m *testing.M) {
	os.Exit(testkit.RunApart(m))
}
