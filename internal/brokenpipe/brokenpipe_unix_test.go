//go:build unix

package brokenpipe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// childEnv, set, makes the test binary a child that does what its value
// says (child) and exits; resultEnv names the file it reports in.
const (
	childEnv  = "SABLINE_BROKENPIPE_CHILD"
	resultEnv = "SABLINE_BROKENPIPE_RESULT"
)

func TestMain(m *testing.M) {
	if what := os.Getenv(childEnv); what != "" {
		os.Exit(child(what, os.Getenv(resultEnv)))
	}
	os.Exit(m.Run())
}

// earlyStderr is standard error as a package took it while Go
// initialised the process, before main: a writer Ignore and Catch must cover too
// (the log package's logger is one).
var earlyStderr = os.Stderr

// child does what the comma-separated words of what say, in order, and
// writes what came of it to the file result:
//
//	ignore          Ignore is called
//	catch           Catch is called
//	reopen          Reopen is called
//	exec            the test binary started with its standard output a
//	                pipe with no reader, writing to it (write1) with no
//	                choice of its own; whether SIGPIPE ended it reported
//	sh              /bin/sh started, sending itself SIGPIPE; whether it
//	                lived on reported
//	write1, write2  one write to os.Stdout or os.Stderr, whether it
//	                failed with EPIPE reported
//	early2          the same through earlyStderr
func child(what, result string) int {
	var said []string
	for w := range strings.SplitSeq(what, ",") {
		switch w {
		case "ignore":
			Ignore()
		case "catch":
			Catch()
		case "reopen":
			if err := Reopen(); err != nil {
				said = append(said, "reopen: "+err.Error())
			}
		case "exec":
			said = append(said, "exec: ended by SIGPIPE "+fmt.Sprint(execEnded(result)))
		case "sh":
			out, _ := exec.Command("/bin/sh", "-c", "kill -PIPE $$; echo lived").Output()
			said = append(said, "sh: lived "+fmt.Sprint(strings.TrimSpace(string(out)) == "lived"))
		case "write1", "write2", "early2":
			f := map[string]*os.File{"write1": os.Stdout, "write2": os.Stderr, "early2": earlyStderr}[w]
			_, err := f.Write([]byte("a line nobody reads\n"))
			said = append(said, fmt.Sprintf("%s: %v", w, errors.Is(err, syscall.EPIPE)))
		}
	}
	if err := os.WriteFile(result, []byte(strings.Join(said, "\n")), 0o600); err != nil {
		return 3
	}
	return 0
}

// execEnded starts the test binary as a child writing to a standard
// output whose reader is gone, and says whether SIGPIPE ended it.
func execEnded(result string) bool {
	r, w, err := os.Pipe()
	if err != nil {
		return false
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=write1", resultEnv+"="+result+".exec")
	cmd.Stdout = w
	_ = cmd.Run()
	sig, ended := testkit.EndedBy(cmd.ProcessState)
	return ended && sig == syscall.SIGPIPE
}

// TestIgnoreAndCatch: a child whose standard output or error is a pipe
// with no reader left writes to it; after Ignore, Catch or Reopen the
// write fails with EPIPE and the child exits on its own, with none
// SIGPIPE ends it (the control). A writer that took descriptor 2 before
// Reopen is still ended by it, as Reopen says. What the parent reads is
// the child's wait status and the file the child wrote after the write.
func TestIgnoreAndCatch(t *testing.T) {
	tests := []struct {
		name       string
		what       string
		stream     int // the descriptor whose reader is gone
		wantSignal bool
		wantSaid   []string
	}{
		{name: "stdout", what: "ignore,write1,write1", stream: 1,
			wantSaid: []string{"write1: true", "write1: true"}},
		{name: "stderr", what: "ignore,write2", stream: 2, wantSaid: []string{"write2: true"}},
		{name: "stderr taken before main", what: "ignore,early2", stream: 2,
			wantSaid: []string{"early2: true"}},
		{name: "stdout, caught", what: "catch,write1", stream: 1,
			wantSaid: []string{"write1: true"}},
		{name: "stdout, reopened", what: "reopen,write1,write1", stream: 1,
			wantSaid: []string{"write1: true", "write1: true"}},
		{name: "stderr, reopened", what: "reopen,write2", stream: 2, wantSaid: []string{"write2: true"}},
		{name: "stderr taken before main, reopened", what: "reopen,early2", stream: 2,
			wantSignal: true},
		{name: "stdout without", what: "write1", stream: 1, wantSignal: true},
		{name: "stderr without", what: "write2", stream: 2, wantSignal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, said := runChild(t, tt.what, tt.stream)
			if status.Signaled() != tt.wantSignal {
				t.Fatalf("%s: wait status %v, want ended by SIGPIPE %v", tt.what, status, tt.wantSignal)
			}
			if tt.wantSignal {
				if status.Signal() != syscall.SIGPIPE {
					t.Fatalf("%s: ended by %v, want SIGPIPE", tt.what, status.Signal())
				}
				return
			}
			if status.ExitStatus() != 0 || said != strings.Join(tt.wantSaid, "\n") {
				t.Fatalf("%s: exit %d, said %q, want 0 and %q", tt.what, status.ExitStatus(), said,
					tt.wantSaid)
			}
		})
	}
}

// runChild starts the test binary as a child doing what, with the
// descriptor stream a pipe whose reader is closed and the other one
// /dev/null, and returns its wait status and what it reported.
func runChild(t *testing.T, what string, stream int) (syscall.WaitStatus, string) {
	t.Helper()
	w := testkit.ReaderGone(t)
	result := filepath.Join(t.TempDir(), "said")
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+what, resultEnv+"="+result)
	if stream == 1 {
		cmd.Stdout = w
	} else {
		cmd.Stderr = w
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", what, err)
	}
	said, _ := os.ReadFile(result) // none when the child was ended before it wrote
	return cmd.ProcessState.Sys().(syscall.WaitStatus), string(said)
}

// TestInherited: what the programs a process starts find of its choice.
// A Go program takes SIGPIPE back as it starts, whether the process that
// started it ignored the signal or caught it: without a choice of its own
// it is ended by a write to a reader gone. A shell started after Ignore
// lives on through a SIGPIPE it sends itself, the ignored signal
// inherited, which is why a process that starts other programs calls
// Catch or Reopen, after which a shell it starts is ended by it, as one
// started with no choice made is (the control).
func TestInherited(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skipf("no /bin/sh to start: %v", err)
	}
	tests := []struct {
		name     string
		what     string
		wantSaid []string
	}{
		{name: "ignored", what: "ignore,exec,sh",
			wantSaid: []string{"exec: ended by SIGPIPE true", "sh: lived true"}},
		{name: "caught", what: "catch,exec,sh",
			wantSaid: []string{"exec: ended by SIGPIPE true", "sh: lived false"}},
		{name: "reopened", what: "reopen,exec,sh",
			wantSaid: []string{"exec: ended by SIGPIPE true", "sh: lived false"}},
		{name: "no choice", what: "exec,sh",
			wantSaid: []string{"exec: ended by SIGPIPE true", "sh: lived false"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, said := runChild(t, tt.what, 2)
			if status.Signaled() || status.ExitStatus() != 0 || said != strings.Join(tt.wantSaid, "\n") {
				t.Fatalf("%s: wait status %v, said %q, want exit 0 and %q", tt.what, status, said,
					tt.wantSaid)
			}
		})
	}
}
