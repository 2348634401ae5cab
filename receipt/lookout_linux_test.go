package receipt_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// TestStoreWakesForNothing: a process that holds a store and does nothing
// makes no context switch in a window of two seconds once it has
// settled: the store waits for a seal request on what the kernel tells
// of its journal's directory, not on a clock (it looked every 500 ms,
// four times a window). The control: a request made in the directory is
// answered, the request file gone (the segment sealed), and the process
// switched to answer it.
func TestStoreWakesForNothing(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), receipt.StoreIdleEnv+"="+t.TempDir())
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
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the idle store said nothing: %v", err)
	}
	journal := line[:len(line)-1]
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

	request := filepath.Join(journal, receipt.SealRequestFile)
	if err := os.WriteFile(request, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Lstat(request); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the seal request was not answered")
		}
	}
	if answered := switches() - before - idle; answered == 0 {
		t.Error("the store answered the request without a switch: the count does not see it")
	}
}
