package lang

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"

	"github.com/sabline/sabline/internal/testkit/nobody"
)

// walkStoppedChildEnv names the directory the child of
// TestWalkStoppedWhereNoGrantReaches runs its programs in.
const walkStoppedChildEnv = "SABLINE_TEST_WALK_STOPPED"

// TestWalkStoppedWhereNoGrantReaches: for a user who is not root (nobody,
// in a child of this test's binary copied where it may run it), a walk
// through a link inside the grant ($G/outdir, to $O) that stops at a
// directory it may not search ($O/locked, root's, mode 0700) is refused
// as leading outside every grant (E302), never with the system's word
// there ("permission denied"), which would tell the program what lies
// beyond its grants. The control: the same directory in the grant
// ($G/locked) answers with the system's word, not E302. Root searches
// every directory, hence the child.
func TestWalkStoppedWhereNoGrantReaches(t *testing.T) {
	if dir := os.Getenv(walkStoppedChildEnv); dir != "" {
		g := filepath.Join(dir, "g")
		for _, p := range []string{"$G/outdir/locked/x.txt", "$G/locked/x.txt",
			"$G/outdir/locked/sub/x.txt", "$G/locked/sub/x.txt"} {
			src := "fs.read(\"" + strings.ReplaceAll(p, "$G", g) + "\")\n"
			r := runSrc(t, Config{Budget: budget.MustParse(g, "fs:read:"+g), Cwd: g,
				Guard: guardOf(filepath.Join(dir, "home"))}, src)
			msg := strings.ReplaceAll(errText(r.err), dir, "DIR")
			os.Stdout.WriteString(p + "\t" + string(codes.CodeOf(r.err)) + "\t" + msg + "\n")
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a directory nobody may not search and start a child as nobody")
	}
	dir := nobody.Dir(t) // nobody walks to the files
	g, o := filepath.Join(dir, "g"), filepath.Join(dir, "o")
	for _, d := range []string{g, o} {
		testkit.WriteFile(t, filepath.Join(d, "locked", "x.txt"), "x")
		testkit.WriteFile(t, filepath.Join(d, "locked", "sub", "x.txt"), "x")
		if err := os.Chmod(filepath.Join(d, "locked"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	symlink(t, o, filepath.Join(g, "outdir"))
	tmp := nobody.Tmp(t, dir) // the child's own temporary directory
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "lang.test")
	testkit.CopyExecutable(t, exe, bin)
	var out, errb strings.Builder
	cmd := exec.Command(bin, "-test.run=^TestWalkStoppedWhereNoGrantReaches$", "-test.count=1")
	cmd.Env = append(os.Environ(), walkStoppedChildEnv+"="+dir, "HOME="+dir, "TMPDIR="+tmp)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: nobody.Uid, Gid: nobody.Uid}}
	if err := cmd.Run(); err != nil {
		t.Fatalf("the child as nobody: %v\n%s%s", err, out.String(), errb.String())
	}
	t.Logf("the child said:\n%s", out.String())
	said := map[string][2]string{} // by path: the code, the message
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 3 {
			said[f[0]] = [2]string{f[1], f[2]}
		}
	}
	// The last name looked at (settle), and a directory on the way (run).
	for _, name := range []string{"locked/x.txt", "locked/sub/x.txt"} {
		if s := said["$G/outdir/"+name]; s[0] != string(codes.E302) ||
			!strings.Contains(s[1], "leads outside every grant") ||
			strings.Contains(s[1], "permission denied") {
			t.Errorf("$G/outdir/%s, stopped where no grant reaches: %s %q; want E302, leading "+
				"outside every grant, and nothing of what stopped the walk", name, s[0], s[1])
		}
		if s := said["$G/"+name]; s[0] == string(codes.E302) ||
			!strings.Contains(s[1], "permission denied") {
			t.Errorf("the control, $G/%s, stopped in the grant: %s %q; want the system's word, "+
				"permission denied", name, s[0], s[1])
		}
	}
}
