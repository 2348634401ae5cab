package testkit

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// OwnProcessEnv, set, says the test runs in a process of its own, which
// the same test started (Rerun): it names the part to do there.
const OwnProcessEnv = "SABLINE_TEST_OWN_PROCESS"

// Rerun runs t's test again in a process of its own (the test binary),
// with OwnProcessEnv set to part and edit's changes to the command, and
// returns the command once it has ended: the test must pass there. One
// skipped there is skipped here.
func Rerun(t *testing.T, part string, edit func(*exec.Cmd)) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Bound(time.Minute))
	defer cancel()
	name, _, _ := strings.Cut(t.Name(), "/")
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), OwnProcessEnv+"="+part)
	if edit != nil {
		edit(cmd)
	}
	out, err := cmd.CombinedOutput()
	if err == nil && strings.Contains(string(out), "--- SKIP: "+name) {
		t.Skipf("skipped in a process of its own:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s in a process of its own: %v\n%s", part, err, out)
	}
	return cmd
}
