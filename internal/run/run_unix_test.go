//go:build unix

package run

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
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

// TestSuperviseANamedPipeCancelled: a run whose program path is a named
// pipe no one writes ends when its context is done (E307), its receipt
// stored, as a library caller (sabline.Run) asks; before, the
// supervisor's open of the pipe held SuperviseContext past its context
// for as long as no writer came. The control: the same pipe, written
// later, runs the program it was given.
func TestSuperviseANamedPipeCancelled(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "prog.vel")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	run := func(ctx context.Context) (*receipt.Receipt, string) {
		var out bytes.Buffer
		rc := filepath.Join(t.TempDir(), "receipts")
		done := make(chan *receipt.Receipt, 1)
		go func() {
			done <- SuperviseContext(ctx, Run{Program: fifo, Budget: budget.MustParse(dir, "io"), Cwd: dir,
				Confine: core.ModeOff, Receipts: rc, Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: io.Discard})
		}()
		select {
		case rec := <-done:
			return rec, out.String()
		case <-time.After(testkit.Bound(10 * time.Second)):
			// Give the open its writer, so that the run ends.
			_ = os.WriteFile(fifo, nil, 0)
			<-done
			t.Fatal("the run did not end when its context was done")
			return nil, ""
		}
	}
	go func() { _ = os.WriteFile(fifo, []byte("print(\"fed\")\n"), 0) }() // waits for the run's open
	if rec, out := run(context.Background()); rec.Outcome.Status != receipt.StatusOK || out != "fed\n" {
		t.Fatalf("the control: %+v, printed %q; want the program written to the pipe run", rec.Outcome, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	rec, _ := run(ctx)
	if rec.Outcome.Code != codes.E307 || !strings.Contains(rec.Outcome.Message, "a named pipe waits for a writer") {
		t.Errorf("cancelled: %+v; want E307 saying a named pipe waits", rec.Outcome)
	}
	if path, err := rec.Stored(); path == "" || err != nil {
		t.Errorf("cancelled: the receipt at %q: %v; want it stored", path, err)
	} else if stored, err := receipt.Load(path); err != nil || stored.Outcome.Code != codes.E307 {
		t.Errorf("cancelled: the stored receipt %v, %v; want E307", stored, err)
	}
}
