//go:build unix

package doorcmd

import (
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestServeErrorReaderGone: sabline serve whose standard error's reader
// goes away once it listens (its operator's terminal closed) answers a
// run with its receipt and, told to stop, ends on its own, not by
// SIGPIPE at its next line: the door catches the signal
// (internal/brokenpipe).
func TestServeErrorReaderGone(t *testing.T) {
	s := startServeAs(t, &served{dropStderr: true})
	if st, v := s.do(t, "POST", "/v1/run", s.token, `{"path":"hello.vel"}`); st != 200 ||
		v["status"] != "ok" {
		t.Fatalf("POST /v1/run: %d %v, want 200 and its run ok", st, v)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.exited:
		s.exited <- err // for the cleanup's wait
	case <-time.After(testkit.Bound(time.Minute)):
		t.Fatal("sabline serve did not end after SIGTERM")
	}
	if sig, ended := testkit.EndedBy(s.cmd.ProcessState); ended && sig == syscall.SIGPIPE {
		t.Fatalf("sabline serve was ended by %v: its standard error's reader went away", sig)
	}
	if n := s.receipts(t); n != 1 {
		t.Fatalf("%d receipts, want the run's", n)
	}
}
