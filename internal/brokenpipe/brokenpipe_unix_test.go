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

	"golang.org/x/sys/unix"

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

// child does what the comma-separated words of what say, in order, and
// writes what came of it to the file result:
//
//	nodup   the copies fail (EMFILE), as with no descriptor number left
//	close1  descriptor 1 is closed first
//	take    AsError is called
//	write1, write2  one write to os.Stdout or os.Stderr, its error reported
//	fds     the descriptors of os.Stdout and os.Stderr reported (number)
//	gc      collections until a dropped file's finalizer has run, then
//	        whether descriptors 1 and 2 are the files they were
func child(what, result string) int {
	var said []string
	for w := range strings.SplitSeq(what, ",") {
		switch w {
		case "nodup":
			dupFrom = func(int) (int, error) { return -1, unix.EMFILE }
		case "close1":
			unix.Close(1)
		case "take":
			AsError()
		case "write1", "write2":
			f := map[string]*os.File{"write1": os.Stdout, "write2": os.Stderr}[w]
			_, err := f.Write([]byte("a line nobody reads\n"))
			said = append(said, fmt.Sprintf("%s: %v", w, errors.Is(err, syscall.EPIPE)))
		case "fds":
			said = append(said, "fds: "+number(os.Stdout)+" "+number(os.Stderr))
		case "gc":
			said = append(said, afterCollections())
		}
	}
	if err := os.WriteFile(result, []byte(strings.Join(said, "\n")), 0o600); err != nil {
		return 3
	}
	return 0
}

// number is f's descriptor, or "copy" for one above standard error that
// an exec closes ("copy kept by exec" where it would not).
func number(f *os.File) string {
	fd := f.Fd()
	if fd <= 2 {
		return fmt.Sprint(fd)
	}
	if flags, err := unix.FcntlInt(fd, unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		return "copy kept by exec"
	}
	return "copy"
}

// afterCollections runs the collector until a dropped file's finalizer
// has run (testkit.CollectDropped), then says whether descriptors 1 and
// 2, whose files AsError replaced, are still the files they were: a
// closed descriptor's number is taken by the next open, so what it names
// is compared, not whether it is open.
func afterCollections() string {
	before := [2]unix.Stat_t{}
	for i := range before {
		if err := unix.Fstat(i+1, &before[i]); err != nil {
			return "gc: " + err.Error()
		}
	}
	if err := testkit.CollectDropped(); err != nil {
		return "gc: " + err.Error()
	}
	same := func(fd int) bool {
		var st unix.Stat_t
		return unix.Fstat(fd, &st) == nil && st.Dev == before[fd-1].Dev && st.Ino == before[fd-1].Ino
	}
	return fmt.Sprintf("gc: 1 kept %v, 2 kept %v", same(1), same(2))
}

// TestAsError: a child whose standard output or error is a pipe with no
// reader left writes to it; with AsError the write fails with EPIPE and
// the child exits on its own, without it SIGPIPE ends the child (the
// control). What the parent reads is the child's wait status and the
// file the child wrote after the write.
func TestAsError(t *testing.T) {
	tests := []struct {
		name       string
		what       string
		stream     int // the descriptor whose reader is gone
		wantSignal bool
		wantSaid   []string
	}{
		{name: "stdout", what: "take,write1,fds", stream: 1,
			wantSaid: []string{"write1: true", "fds: copy copy"}},
		{name: "stderr", what: "take,write2,fds", stream: 2,
			wantSaid: []string{"write2: true", "fds: copy copy"}},
		{name: "stdout without", what: "write1", stream: 1, wantSignal: true},
		{name: "stderr without", what: "write2", stream: 2, wantSignal: true},
		{name: "stdout closed", what: "close1,take,write2,fds", stream: 2,
			wantSaid: []string{"write2: true", "fds: 1 copy"}},
		{name: "no copy: the signal taken", what: "nodup,take,write1,fds", stream: 1,
			wantSaid: []string{"write1: true", "fds: 1 2"}},
		{name: "files kept from their finalizers", what: "take,gc", stream: 1,
			wantSaid: []string{"gc: 1 kept true, 2 kept true"}},
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
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
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
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", what, err)
	}
	said, _ := os.ReadFile(result) // none when the child was ended before it wrote
	return cmd.ProcessState.Sys().(syscall.WaitStatus), string(said)
}
