//go:build unix

package run

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
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
// program of the test started). A process that is dying (a SIGKILL
// pending, or already exiting: what a run's end sends its worker's
// group) is waited for while it dies, bounded by the machine's load.
func processExists(t *testing.T, pid string) bool {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 1 {
		t.Fatalf("pid %q", pid)
	}
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		live, dying := procState(n)
		if !live {
			return false
		}
		if !dying || time.Now().After(deadline) {
			_ = syscall.Kill(n, syscall.SIGKILL)
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// procState says whether process n is live (not gone, not a zombie), and
// whether it is dying: a SIGKILL pending, or its exit begun (PF_EXITING),
// as /proc shows (where there is no /proc, it is not said to be dying).
func procState(n int) (live, dying bool) {
	if syscall.Kill(n, 0) != nil {
		return false, false
	}
	pid := strconv.Itoa(n)
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true, false
	}
	_, after, ok := strings.Cut(string(stat), ") ")
	if !ok {
		return true, false
	}
	fields := strings.Fields(after) // state is field 3 of stat, flags field 9
	if len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X") {
		return false, false
	}
	const pfExiting = 0x4
	if len(fields) > 6 {
		if flags, err := strconv.ParseUint(fields[6], 10, 64); err == nil && flags&pfExiting != 0 {
			return true, true
		}
	}
	status, _ := os.ReadFile("/proc/" + pid + "/status")
	for _, line := range strings.Split(string(status), "\n") {
		key, val, _ := strings.Cut(line, ":")
		if key != "SigPnd" && key != "ShdPnd" {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64); err == nil && mask&(1<<(syscall.SIGKILL-1)) != 0 {
			return true, true
		}
	}
	return true, false
}
