//go:build unix

package run

import (
	"bufio"
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

// TestToolChannelEndedByTheHost: a host that ends its tool channel, by a
// close or by shutting down its writing half, ends the wait of the call
// that has no answer: E313, long before the run's timeout. Before, the
// copy of the host's channel ended and the worker's end stayed open, so
// the call waited until the timeout (for ever with none) and the worker
// was killed, its position lost. The host reads both requests, and
// answers the first: the control.
func TestToolChannelEndedByTheHost(t *testing.T) {
	const src = `print("first", tool.call("add", {"a": 2})["sum"])
tool.call("add", {"a": 3})
print("not reached")
`
	for _, tt := range []struct {
		name string
		end  func(host *os.File) error
	}{
		{name: "closed", end: func(host *os.File) error { return host.Close() }},
		{name: "its writing shut down", end: func(host *os.File) error {
			raw, err := host.SyscallConn()
			if err != nil {
				return err
			}
			var serr error
			if err := raw.Control(func(fd uintptr) {
				serr = syscall.Shutdown(int(fd), syscall.SHUT_WR)
			}); err != nil {
				return err
			}
			return serr
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hostEnd, workerEnd := socketPair(t)
			seen := make(chan int, 1)
			go func() {
				n := 0
				defer func() { seen <- n }()
				rd := bufio.NewReader(hostEnd)
				for {
					if _, err := rd.ReadString('\n'); err != nil {
						return
					}
					switch n++; n {
					case 1:
						if _, err := io.WriteString(hostEnd, `{"sum": 5}`+"\n"); err != nil {
							return
						}
					case 2: // read, and never answered
						if err := tt.end(hostEnd); err != nil {
							t.Errorf("ending the channel: %v", err)
							return
						}
					}
				}
			}()
			s := superviseProgram(t, src, []string{"io", "tool"}, func(r *Run) { r.Tool = workerEnd })
			workerEnd.Close()
			wantCode(t, s, codes.E313, "no answer on the tool channel")
			if s.stdout != "first 5\n" {
				t.Errorf("stdout %q, want the answered call's line only", s.stdout)
			}
			hostEnd.SetReadDeadline(time.Now().Add(testkit.Bound(5 * time.Second)))
			if n := <-seen; n != 2 {
				t.Errorf("the host read %d requests, want 2", n)
			}
		})
	}
}
