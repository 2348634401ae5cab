package linux

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// childChecks runs test again in a process of its own with the variable
// env set to value, where it restricts itself and attempts what the
// kernel should hold, and fails t unless the child passed and said how
// many checks it made ("LABEL child: N checks"): a child that checked
// nothing is no evidence.
func childChecks(t *testing.T, test, env, value, label string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := regexp.MustCompile(regexp.QuoteMeta(label) + ` child: (\d+) checks`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("the child ran no checks:\n%s", out)
	}
	t.Logf("the child passed %s checks", m[1])
}
