package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
)

// signalsBackPart is the part of TestSuperviseGivesItsSignalsBack that
// runs in a process of its own.
const signalsBackPart = "signals back: "

// TestSuperviseGivesItsSignalsBack: a supervisor that takes the
// operator's signals (Run.Signals) gives them back at every return, so
// that a SIGTERM after the run ends its process as it would have ended it
// before, rather than going to a channel no one reads. In a process of
// its own: a run stopped by a SIGTERM that the supervisor took (E309,
// the process alive: the control, the signal taken while it runs), or
// refused before its worker starts (E301), then a second SIGTERM, which
// ends the process.
func TestSuperviseGivesItsSignalsBack(t *testing.T) {
	if part, ok := strings.CutPrefix(os.Getenv(testkit.OwnProcessEnv), signalsBackPart); ok {
		superviseThenTerminated(t, part)
		return
	}
	for _, tc := range []struct{ name, part, said string }{
		{name: "a run stopped by a SIGTERM it took", part: "in flight", said: "E309"},
		{name: "a run refused before its worker starts", part: "refused", said: "E301"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(time.Minute))
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0],
				"-test.run=^TestSuperviseGivesItsSignalsBack$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), testkit.OwnProcessEnv+"="+signalsBackPart+tc.part)
			out, err := cmd.CombinedOutput()
			if strings.Contains(string(out), "--- SKIP: ") {
				t.Skipf("skipped in a process of its own:\n%s", out)
			}
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !strings.Contains(string(out), "supervise returned "+tc.said) {
				t.Fatalf("the run in a process of its own did not return %s (%v):\n%s", tc.said,
					err, out)
			}
			if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
				t.Fatalf("a SIGTERM once Supervise returned %s left the process to end %v, "+
					"not by the signal: the supervisor kept it:\n%s", tc.said, err, out)
			}
		})
	}
}

// superviseThenTerminated is TestSuperviseGivesItsSignalsBack's process
// of its own: it supervises a run that part names, says what it returned,
// then sends itself SIGTERM and waits, bounded, to be ended by it.
func superviseThenTerminated(t *testing.T, part string) {
	if signal.Ignored(syscall.SIGTERM) {
		t.Skip("this process was started with SIGTERM ignored, which a Go program keeps")
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.vel")
	testkit.WriteFile(t, prog, "print(\"running\")\nio.read_line()\n")
	stdin, hold, err := os.Pipe() // input that never comes: the run waits for it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	defer hold.Close()
	running := &firstWrite{said: make(chan struct{})}
	r := Run{Program: prog, Budget: budget.MustParse(dir, "io"), Cwd: dir, Confine: core.ModeOff,
		Timeout: testkit.Bound(time.Minute), Receipts: filepath.Join(dir, "receipts"),
		Stdin: stdin, Stdout: running, Stderr: &bytes.Buffer{}, Signals: true}
	switch part {
	case "in flight":
		go func() {
			<-running.said
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}()
	case "refused":
		r.MaxMemoryMB = MaxMemoryMB + 1
	default:
		t.Fatalf("no part %q", part)
	}
	rec := Supervise(r)
	fmt.Printf("supervise returned %s: %s\n", rec.Outcome.Code, rec.Outcome.Message)
	want := map[string]codes.Code{"in flight": codes.E309, "refused": codes.E301}[part]
	if rec.Outcome.Code != want {
		t.Fatalf("Supervise: %s %q, want %s", rec.Outcome.Code, rec.Outcome.Message, want)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The signal ends this process as it is delivered; it is waited for
	// as long as a loaded machine may take to deliver it.
	for deadline := time.Now().Add(testkit.Bound(10 * time.Second)); time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("alive after a SIGTERM")
}

// firstWrite is a writer that closes said at its first write.
type firstWrite struct {
	once sync.Once
	said chan struct{}
}

func (w *firstWrite) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.said) })
	return len(p), nil
}
