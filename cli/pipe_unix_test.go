//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/receipt"
)

// TestCommandOutputReaderGone: a run whose standard output is a pipe
// nobody reads any more (sabline ... | head, head gone) ends on its own,
// not by SIGPIPE, and its receipt is stored: the command's main writes
// through copies of descriptors 1 and 2 (internal/brokenpipe), where the
// run package, which hosts embed, leaves the process's files and signals
// alone. Its program's print fails, as a write to a broken pipe does; the
// worker is not ended by the signal. The control is the same run with a
// reader, which prints it all.
func TestCommandOutputReaderGone(t *testing.T) {
	bin := sablineBin(t)
	dir := t.TempDir()
	// 1.3 MB: more than the worker's pipe to the relay holds and the relay
	// reads before it finds the reader gone, so that the program's writes
	// meet the broken pipe, whatever the two processes' timing.
	const lines = 20000
	prog := filepath.Join(dir, "prog.vel")
	src := fmt.Sprintf("for i in range(%d):\n    print('line', i, %q * 50)\n", lines, "x")
	if err := os.WriteFile(prog, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		readerGone  bool
		wantOutcome string // the receipt's status and code
	}{
		// The program's print fails: the worker, whose standard output is
		// the relay's pipe, writes through a copy of it too.
		{name: "reader gone", readerGone: true, wantOutcome: "failed E305"},
		{name: "reader there", wantOutcome: "ok "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := filepath.Join(t.TempDir(), "receipts")
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--allow", "io", "--receipts", rc, prog)
			cmd.Stdout = w
			var out []byte
			read := make(chan error, 1)
			if tt.readerGone {
				r.Close()
				read <- nil
			} else {
				go func() {
					var sb strings.Builder
					buf := make([]byte, 1<<16)
					for {
						n, err := r.Read(buf)
						sb.Write(buf[:n])
						if err != nil {
							out = []byte(sb.String())
							read <- nil
							return
						}
					}
				}()
			}
			err = cmd.Run()
			w.Close()
			<-read
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					t.Fatalf("sabline was ended by %v: its output's reader went away", ws.Signal())
				}
			}
			runErr := err
			runs, _, err := receipt.Scan(rc)
			if err != nil || len(runs) != 1 {
				t.Fatalf("receipts in %s: %d (%v), want the run's", rc, len(runs), err)
			}
			o := runs[0].Outcome
			t.Logf("%v: receipt %s, outcome %s %s %q", runErr, runs[0].RunID, o.Status, o.Code, o.Message)
			if got := string(o.Status) + " " + string(o.Code); got != tt.wantOutcome {
				t.Errorf("outcome %s (%s), want %s", got, o.Message, tt.wantOutcome)
			}
			if n := strings.Count(string(out), "\n"); !tt.readerGone && (runErr != nil || n != lines) {
				t.Errorf("with a reader: %v, %d lines printed, want %d", runErr, n, lines)
			}
		})
	}
}
