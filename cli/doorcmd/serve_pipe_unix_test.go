//go:build unix

package doorcmd

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestServeErrorReaderGone: sabline serve whose standard error's reader
// goes away once it listens (its operator's terminal closed) answers a
// run with its receipt and, told to stop, ends on its own, not by
// SIGPIPE at its next line: the door catches the signal
// (internal/brokenpipe).
func TestServeErrorReaderGone(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	root, rc := filepath.Join(dir, "root"), filepath.Join(dir, "receipts")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{root, tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	prog := []byte("print('hello')\n")
	if err := os.WriteFile(filepath.Join(root, "hello.vel"), prog, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--import-root", root, "--allow", "io",
		"--listen", "127.0.0.1:0", "--receipts", rc, "--workers", "1")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp) // the rest of dir outside the server's grants
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "listening on "); ok {
				a, _, _ := strings.Cut(rest, " ")
				addr <- a
				break
			}
		}
		stderr.Close() // the reader gone
		_ = cmd.Wait()
		close(exited)
	}()
	s := &served{}
	select {
	case a := <-addr:
		s.url = "http://" + a
	case <-exited:
		t.Fatalf("sabline serve ended (%v) before it listened", cmd.ProcessState)
	case <-time.After(testkit.Bound(time.Minute)):
		t.Fatal("sabline serve did not say where it listens")
	}
	token, err := os.ReadFile(filepath.Join(rc, tokenFileName))
	if err != nil {
		t.Fatal(err)
	}
	if st, v := s.do(t, "POST", "/v1/run", strings.TrimSpace(string(token)),
		`{"path":"hello.vel"}`); st != 200 {
		t.Fatalf("POST /v1/run: %d %v, want 200", st, v)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(testkit.Bound(time.Minute)):
		t.Fatal("sabline serve did not end after SIGTERM")
	}
	if sig, ended := testkit.EndedBy(cmd.ProcessState); ended && sig == syscall.SIGPIPE {
		t.Fatalf("sabline serve was ended by %v: its standard error's reader went away", sig)
	}
	runs, _, err := receipt.Scan(rc)
	if err != nil || len(runs) != 1 || runs[0].Outcome.Status != receipt.StatusOK {
		t.Fatalf("receipts in %s: %d (%v), want the run's, ok", rc, len(runs), err)
	}
}
