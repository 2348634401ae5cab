//go:build linux

package lang

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// linkHomesEnv carries, to the test binary re-run as a child, the
// directory the child changes its root to.
const linkHomesEnv = "SABLINE_TEST_LINK_HOMES_ROOT"

// TestCredentialRootThroughLinks checks that the system's home directories
// are credential roots as their links resolve: on a machine whose /home
// and /root are links (to /data/home and /data/root), a path reached
// through the link's target is still in a credential location. The child
// changes its root to a tree the test made, where /home and /root are such
// links, before it first asks for the system's homes.
func TestCredentialRootThroughLinks(t *testing.T) {
	if root := os.Getenv(linkHomesEnv); root != "" {
		// The path walk reads what it opened through /proc: the child,
		// started in a mount namespace of its own, mounts one in its new
		// root, so that nothing is mounted on the machine's tree.
		if err := os.Mkdir(filepath.Join(root, "proc"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount("proc", filepath.Join(root, "proc"), "proc", 0, ""); err != nil {
			fmt.Printf("mount proc: %v\n", err)
			os.Exit(3)
		}
		if err := syscall.Chroot(root); err != nil {
			fmt.Printf("chroot: %v\n", err)
			os.Exit(3)
		}
		if err := os.Chdir("/"); err != nil {
			t.Fatal(err)
		}
		linkHomesChild(t)
		return
	}
	root := t.TempDir()
	for _, d := range []string{"data/home/alice/.ssh", "data/root/.gnupg", "data/srv/.ssh"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"home": "/data/home", "root": "/data/root"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCredentialRootThroughLinks$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), linkHomesEnv+"="+root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // its mounts private too
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Skipf("the child cannot change its root, which this test needs to make /home a link: %s", strings.TrimSpace(string(out)))
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestCredentialRootThroughLinks/") {
		t.Fatalf("the child ran no case:\n%s", out)
	}
	t.Logf("child:\n%s", out)
}

func linkHomesChild(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		wantRoot string // "" for a path in no credential location
	}{
		{name: "a user's key through /home's target", path: "/data/home/alice/.ssh/id_x", wantRoot: "/data/home/alice/.ssh"},
		{name: "a user's key through /home itself", path: "/home/alice/.ssh/id_x", wantRoot: "/home/alice/.ssh"},
		{name: "root's keyring through /root's target", path: "/data/root/.gnupg/pubring.kbx", wantRoot: "/data/root/.gnupg"},
		{name: "a .ssh in no home: the control", path: "/data/srv/.ssh/id_x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, ok := credentialRoot(tt.path, "")
			if ok != (tt.wantRoot != "") || root != tt.wantRoot {
				t.Errorf("credentialRoot(%q, \"\") = %q, %v; want %q", tt.path, root, ok, tt.wantRoot)
			}
		})
	}
}
