package testkit

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// InNetworkOfItsOwn reports whether t runs in a network namespace of its
// own; where it does not, it runs t again (Rerun), as the part named
// name, in a new one (as root), and the caller returns: what it checks
// is checked there. Without root it skips, saying why.
func InNetworkOfItsOwn(t *testing.T, name string) bool {
	t.Helper()
	if os.Getenv(OwnProcessEnv) == name {
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of the test's own needs root here")
	}
	Rerun(t, name, func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	})
	return false
}

// IPCommand is the ip command (iproute2) of the test's network namespace
// (InNetworkOfItsOwn), run with args; t is skipped, saying why, where
// there is none or a command fails (a kernel without veth or IPv6).
func IPCommand(t *testing.T) func(args ...string) {
	t.Helper()
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skipf("no ip command (iproute2) to set this namespace's routes: %v", err)
	}
	return func(args ...string) {
		t.Helper()
		if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
			t.Skipf("ip %v: %v\n%s", args, err, out)
		}
	}
}
