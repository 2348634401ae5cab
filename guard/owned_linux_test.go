package guard

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/internal/testkit/nobody"
)

// ownedChildEnv names the directory the child of TestOwnedByAnother
// judges the files of.
const ownedChildEnv = "SABLINE_TEST_OWNED_BY_ANOTHER"

// TestOwnedByAnother: for a user who is not root (nobody, in a child of
// this test's binary copied where it may run it), a file root owns is
// not another's, nor is one of its own, and one a third user owns is:
// a token or tenants file root owns (a Secret mounted for the server) is
// read by a server that runs as its own user. Run as root, which owns
// every file it makes, the root-owned case proves nothing: hence the
// child.
func TestOwnedByAnother(t *testing.T) {
	if dir := os.Getenv(ownedChildEnv); dir != "" {
		for _, name := range []string{"root", "mine", "third"} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			uid, another := OwnedByAnother(fi)
			if another {
				os.Stdout.WriteString(name + ":another:" + strconv.Itoa(uid) + "\n")
			} else {
				os.Stdout.WriteString(name + ":not\n")
			}
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make files others own and start a child as nobody")
	}
	dir := nobody.Dir(t) // nobody looks the files up
	for name, uid := range map[string]int{"root": 0, "mine": 65534, "third": 54321} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "guard.test")
	copyExecutable(t, exe, bin)
	var out strings.Builder
	cmd := exec.Command(bin, "-test.run=^TestOwnedByAnother$", "-test.count=1")
	cmd.Env = append(os.Environ(), ownedChildEnv+"="+dir, "HOME="+dir)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: nobody.Uid, Gid: nobody.Uid}}
	if err := cmd.Run(); err != nil {
		t.Fatalf("the child as nobody: %v\n%s", err, out.String())
	}
	for _, want := range []string{"root:not\n", "mine:not\n", "third:another:54321\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("judged by nobody: %q; want it to say %q", out.String(), want)
		}
	}
}

// copyExecutable copies the file from to the new file to, mode 0755.
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
