package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestAgentThatTakesNoInput: a call to an agent that takes no input
// (stopped, as SIGSTOP, a debugger or a frozen cgroup leaves it) ends at
// its deadline, though its message fills the pipe and cannot be written
// whole, and so does a call behind it: a replica's rounds, lookups and
// stop are bounded by their deadlines, not held until the agent wakes.
// Once the agent takes input again, the stream is in step: the message
// given up on arrives whole, and the calls after it are answered. The
// control: the same create to the agent running is answered.
func TestAgentThatTakesNoInput(t *testing.T) {
	a := startTestAgent(t, "memory")
	ctx := context.Background()
	big := bytes.Repeat([]byte("r"), 1<<20) // more than a pipe holds
	if err := a.Create(ctx, "running", big); err != nil {
		t.Fatalf("a create to the agent running: %v", err)
	}
	p := a.cmd.Process
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Signal(syscall.SIGCONT) }) // before the agent is closed
	waitForState(t, p.Pid, "T")

	bound := testkit.Bound(10 * time.Second)
	for _, c := range []struct {
		name string
		do   func(ctx context.Context) error
	}{
		{"a create that fills the pipe", func(ctx context.Context) error {
			return a.Create(ctx, "stopped", big)
		}},
		{"a list behind it", func(ctx context.Context) error {
			_, err := a.List(ctx, "")
			return err
		}},
	} {
		cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		done := make(chan error, 1)
		go func() { done <- c.do(cctx) }()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s to an agent that takes no input: %v, want its deadline", c.name, err)
			}
		case <-time.After(bound):
			t.Fatalf("%s to an agent that takes no input has not returned in %s; its deadline "+
				"was 100ms", c.name, bound)
		}
		cancel()
	}

	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for {
		// The agent serves each request beside the others: the create given
		// up on may be done after a read sent behind it.
		got, err := a.Read(wctx, "stopped", 0, -1)
		if err == nil {
			if !bytes.Equal(got, big) {
				t.Errorf("the create given up on left %d bytes, want its %d", len(got), len(big))
			}
			break
		}
		if !errors.Is(err, ErrNotExist) {
			t.Fatalf("a read once the agent takes input again: %v", err)
		}
	}
	if keys, err := a.List(wctx, ""); err != nil || len(keys) != 2 {
		t.Errorf("a list once the agent takes input again = %q, %v; want the two keys", keys, err)
	}
}

// waitForState waits, within a bound, for process pid to be in state
// (/proc/PID/stat: "T", stopped).
func waitForState(t *testing.T, pid int, state string) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// "PID (COMM) STATE ...": the state follows the last ')'.
		rest := string(data[bytes.LastIndexByte(data, ')')+1:])
		if f := strings.Fields(rest); len(f) > 0 && f[0] == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d is not in state %s: %s", pid, state, rest)
		}
		time.Sleep(time.Millisecond)
	}
}
