package confinecheck

import (
	"fmt"
	"os"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// execMarkerEnv, when set, makes this test binary write the file it names
// and exit before any test runs: copied beneath a grant, it is the
// program the fault-injection hook executes (alone_linux_test.go), and
// the file is its mark, seen from outside the worker.
const execMarkerEnv = "SABLINE_CHECKS_EXEC_MARKER"

// TestMain runs the package's tests with a register of their own: the
// stores, tokens and runs directories they make (and the sabline
// processes they start, which inherit it) join it, never this machine's.
func TestMain(m *testing.M) {
	// The stacked domains' spec (require_test.go) runs sabline held by
	// them: this binary stacks them and executes it in its place.
	if err := testkit.StackedExec(); err != nil {
		fmt.Fprintln(os.Stderr, "a process held by stacked Landlock domains:", err)
		os.Exit(1)
	}
	if p := os.Getenv(execMarkerEnv); p != "" {
		if err := os.WriteFile(p, []byte("executed\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(testkit.RunApart(m))
}
