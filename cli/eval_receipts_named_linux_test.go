package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// TestEvalReceiptsNamedAsAPatternNoGrantReaches: a receipts directory
// whose name holds a pattern's character (rc[1]) is guarded as that name,
// under a grant of the directory above it: a program that rewrites the
// receipts there is refused (E318), and one that makes a file there by
// raw calls under --confine strict is refused by the kernel, nothing made
// on disk. The guard read the name as a pattern before, which matched
// rc1 beside it and not rc[1]: the first program rewrote an earlier
// program's receipt and passed, the second made forged.json. The
// controls, under the same budget: a program that prints its answer
// passes, and one that writes in rc1 beside it, through the language and
// by raw calls, passes and leaves its files there (it was E318 before).
func TestEvalReceiptsNamedAsAPatternNoGrantReaches(t *testing.T) {
	bin := sablineBin(t)
	top := t.TempDir()
	suite, rc, beside := filepath.Join(top, "suite"), filepath.Join(top, "rc[1]"),
		filepath.Join(top, "rc1")
	for _, d := range []string{suite, beside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	raw := "c = ffi.module(\"ctypes\")\nc.syscall(\"openat\", -100, %q, 0x41, 0o600)\n"
	files := map[string]string{
		"a_first.vel": "print(\"1\")\n",
		"b_forger.vel": fmt.Sprintf("for n in fs.list(%q):\n    fs.write(%q + \"/\" + n, "+
			"\"forged\")\nprint(\"1\")\n", rc, rc),
		"c_raw.vel": fmt.Sprintf(raw, filepath.Join(rc, "forged.json")) + "print(\"1\")\n",
		"d_beside.vel": fmt.Sprintf("fs.write(%q, \"x\")\n", filepath.Join(beside, "x")) +
			fmt.Sprintf(raw, filepath.Join(beside, "y")) + "print(\"1\")\n",
	}
	for name, text := range files {
		testkit.WriteFile(t, filepath.Join(suite, name), text)
		testkit.WriteFile(t, filepath.Join(suite, name[:len(name)-len(".vel")]+".out"), "1\n")
	}
	allow := "io,ffi:ctypes,fs:read:" + top + ",fs:write:" + top
	got, code, runs := evalGrades(t, exec.Command(bin, "eval", suite, "--json", "--allow", allow,
		"--confine", "strict", "--receipts", rc), rc)
	want := map[string]string{
		"a_first.vel": "pass", "b_forger.vel": "error E318", "c_raw.vel": "pass",
		"d_beside.vel": "pass",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s graded %q, want %q", name, got[name], w)
		}
	}
	if code != 1 || len(runs) != 4 {
		t.Errorf("exit %d, %d receipts; want 1 and 4 (none rewritten)", code, len(runs))
	}
	if _, err := os.Lstat(filepath.Join(rc, "forged.json")); err == nil {
		t.Errorf("a raw call made %s", filepath.Join(rc, "forged.json"))
	}
	for _, f := range []string{"x", "y"} {
		if _, err := os.Lstat(filepath.Join(beside, f)); err != nil {
			t.Errorf("the control's write beside the receipts: %v", err)
		}
	}
}
