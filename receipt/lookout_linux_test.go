package receipt_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// TestStoreWakesForNothing: a process that holds stores and does nothing
// makes no context switch in a window of two seconds once it has
// settled: each store waits for a seal request on what the kernel tells
// of its journal's directory, not on a clock (it looked every 500 ms,
// four times a window). Its three stores are watched through one inotify
// instance, read from the process's descriptors: the instances are few
// and every process of the user shares them. The control: a request made
// in each store's directory is answered, the request file gone (the
// segment sealed), and the process switched to answer them.
func TestStoreWakesForNothing(t *testing.T) {
	const stores = 3
	var dirs []string
	for range stores {
		dirs = append(dirs, t.TempDir())
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(),
		receipt.StoreIdleEnv+"="+strings.Join(dirs, string(os.PathListSeparator)))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	lines := bufio.NewReader(out)
	var journals []string
	for range stores {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("the idle stores said %d journals: %v", len(journals), err)
		}
		journals = append(journals, strings.TrimSuffix(line, "\n"))
	}
	// A machine whose user has every inotify instance in use (the whole
	// test suite's processes, and others', share 128) gives the stores
	// none; they then look by the clock, as they should.
	if why, err := lines.ReadString('\n'); err != nil {
		t.Fatalf("the idle stores did not say whether they are watched: %v", err)
	} else if why = strings.TrimSuffix(why, "\n"); why != receipt.IdleWatched {
		t.Skipf("the kernel gave the idle stores no inotify instance (%s): "+
			"not what this test is about", why)
	}
	if n := inotifyInstances(t, cmd.Process.Pid); n != 1 {
		t.Errorf("the process holds %d inotify instances for its %d stores, want 1", n, stores)
	}
	switches := func() int64 {
		n, err := proc.ContextSwitches(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Settled: no switch for 200 ms (its start's collections and
	// threads done), within a bound.
	for last, deadline := switches(), time.Now().Add(testkit.Bound(10*time.Second)); ; {
		time.Sleep(200 * time.Millisecond)
		now := switches()
		if now == last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle store kept switching: %d after %d", now, last)
		}
		last = now
	}
	const window, most = 2 * time.Second, 2
	before := switches()
	time.Sleep(window)
	idle := switches() - before
	t.Logf("the idle store switched %d times in %s", idle, window)
	if idle > most {
		t.Errorf("the idle store switched %d times in %s, want at most %d", idle, window, most)
	}

	for _, journal := range journals {
		request := filepath.Join(journal, receipt.SealRequestFile)
		if err := os.WriteFile(request, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Lstat(request); os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the seal request in %s was not answered", journal)
			}
		}
	}
	if answered := switches() - before - idle; answered == 0 {
		t.Error("the store answered the request without a switch: the count does not see it")
	}
}

// inotifyInstances counts the inotify instances among the descriptors of
// the process pid, read from its /proc/PID/fd.
func inotifyInstances(t *testing.T, pid int) int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil &&
			to == "anon_inode:inotify" {
			n++
		}
	}
	return n
}
