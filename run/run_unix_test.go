//go:build unix

package run

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// socketPair returns the two ends of a Unix stream socket pair: a tool
// channel as a host makes one.
func socketPair(t *testing.T) (host, worker *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	host, worker = os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "worker")
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	t.Cleanup(func() { host.Close(); worker.Close() })
	return host, worker
}

// processExists says whether pid is a live process (a zombie, killed and
// not yet reaped, is not); if it is, the test kills it (a process a
// program of the test started).
func processExists(t *testing.T, pid string) bool {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 1 {
		t.Fatalf("pid %q", pid)
	}
	if syscall.Kill(n, 0) != nil {
		return false
	}
	if stat, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil {
		if _, after, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(after, "Z") {
			return false
		}
	}
	_ = syscall.Kill(n, syscall.SIGKILL)
	return true
}
