//go:build darwin

package confine

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
)

// darwinHelperEnv makes the test binary a worker that applies a policy
// granting writes to one directory, then writes there and to another.
const darwinHelperEnv = "SABLINE_DARWIN_APPLY_HELPER"

func darwinApplyHelper(dirs string) {
	granted, other, _ := strings.Cut(dirs, "\n")
	p := core.OSPolicy(budget.MustParse("/", "io,fs:write:"+granted), core.Options{})
	r, err := Apply(p, ApplyOptions{TempDir: os.TempDir(), MaxMemoryMB: 256})
	out, _ := json.Marshal(r)
	os.Stdout.WriteString("RESULT " + string(out) + "\n")
	if err != nil {
		os.Stdout.WriteString("ERROR " + err.Error() + "\n")
	}
	_ = os.WriteFile(filepath.Join(granted, "granted.txt"), []byte("x"), 0o600)
	_ = os.WriteFile(filepath.Join(other, "escape.txt"), []byte("x"), 0o600)
	os.Exit(0)
}

// TestDarwinApplyHoldsWrites applies a profile in a child process that,
// as a worker, has no HOME, and watches its writes from outside: the one
// into the grant is made (the positive control), the one outside it is
// not.
func TestDarwinApplyHoldsWrites(t *testing.T) {
	if dirs := os.Getenv(darwinHelperEnv); dirs != "" {
		darwinApplyHelper(dirs)
	}
	granted, other := t.TempDir(), t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDarwinApplyHoldsWrites$")
	// As a worker without the env grant starts: with no HOME (the
	// profile's home then comes from the user database).
	env := slices.DeleteFunc(os.Environ(),
		func(kv string) bool { return strings.HasPrefix(kv, "HOME=") })
	cmd.Env = append(env, darwinHelperEnv+"="+granted+"\n"+other)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var r core.Result
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if j, ok := strings.CutPrefix(sc.Text(), "RESULT "); ok {
			if err := json.Unmarshal([]byte(j), &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("helper said:\n%s", out)
	if r.Level != core.Partial || !slices.Equal(r.Layers, []string{core.LayerSandboxProfile}) || !strings.Contains(r.Reason, "Apple has deprecated") {
		t.Fatalf("Result = %+v; want partial, the sandbox profile, and why", r)
	}
	if _, err := os.Stat(filepath.Join(granted, "granted.txt")); err != nil {
		t.Errorf("the write into the grant was refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "escape.txt")); err == nil {
		t.Errorf("the write outside every grant was made under the profile")
	}
}
