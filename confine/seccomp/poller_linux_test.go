package seccomp

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/internal/testkit"
)

// pollerChildEnv marks the child of TestInstallMakesThePoller.
const pollerChildEnv = "SABLINE_TEST_POLLER_CHILD"

// TestInstallMakesThePoller: the filter refuses epoll_create1 and
// eventfd2, so Install makes the Go runtime's poller before it, which a
// process that has polled nothing yet (no timer, no pipe) would otherwise
// make at its first descriptor that can be polled, after the filter, and
// die of (netpollinit throws). The child, started with no test timeout
// (a timer starts the poller), holds no epoll instance when it installs
// the filter, then reads a pipe the test hands it through the poller;
// the test sees from outside that it read what was written and ended
// well. A child that already holds a poller proves nothing: skipped,
// saying so.
func TestInstallMakesThePoller(t *testing.T) {
	if os.Getenv(pollerChildEnv) != "" {
		testkit.EndChildBeforeCoverage(t)
		pollerChild(t)
		return
	}
	if _, ok := NativeArch(); !ok {
		t.Skip("no filter for this architecture")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestInstallMakesThePoller$", "-test.count=1",
		"-test.timeout=0", "-test.v")
	cmd.Env = append(os.Environ(), pollerChildEnv+"=1")
	cmd.ExtraFiles = []*os.File{r} // fd 3
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteString("polled\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	err = cmd.Wait()
	switch got := out.String(); {
	case strings.Contains(got, "SKIP-POLLER"):
		t.Skipf("the child held a poller before the filter, so nothing is proved: %s", got)
	case err != nil || !strings.Contains(got, "READ polled"):
		t.Fatalf("the child, its poller first needed after the filter: %v\n%s", err, got)
	}
}

// pollerChild holds no epoll instance, installs the filter, then reads
// fd 3 through the runtime's poller.
func pollerChild(t *testing.T) {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if l, _ := os.Readlink("/proc/self/fd/" + fd.Name()); strings.Contains(l, "eventpoll") {
			os.Stdout.WriteString("SKIP-POLLER: fd " + fd.Name() + " is " + l + "\n")
			return
		}
	}
	if err := syscall.SetNonblock(3, true); err != nil {
		t.Fatal(err)
	}
	installFilter(t, Config{Sockets: NoSockets, PID: os.Getpid()})
	f := os.NewFile(3, "pipe") // non-blocking: it joins the poller, made now if not before
	buf := make([]byte, 64)
	n, err := f.Read(buf)
	if err != nil {
		t.Fatalf("read through the poller: %v", err)
	}
	os.Stdout.WriteString("READ " + string(buf[:n]))
}
