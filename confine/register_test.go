package confine

import (
	"os"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestMain runs the package's tests with a register of their own: the
// sabline processes they start join it (their runs directories), never
// this machine's.
func TestMain(m *testing.M) {
	os.Exit(testkit.RunApart(m))
}
