package receipt

import (
	"os"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestMain runs the package's tests with a register of their own: the
// stores, tokens and runs directories they make (and the sabline
// processes they start, which inherit it) join it, never this machine's.
// Started with storeIdleEnv set, the test binary is the idle store of
// TestStoreWakesForNothing instead.
func TestMain(m *testing.M) {
	if dir := os.Getenv(storeIdleEnv); dir != "" {
		os.Exit(idleStore(dir))
	}
	os.Exit(testkit.RunApart(m))
}
