package run

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestStoppedRunNotHeldByAnUnreadOutput: a run stopped at its timeout
// ends within its timeout and the supervisor's graces though its caller's
// standard output is a pipe nobody reads, which the program has filled;
// and, as the control, as soon when the caller reads it all.
func TestStoppedRunNotHeldByAnUnreadOutput(t *testing.T) {
	const timeout = time.Second
	// Beside the timeout: the worker's start, the stop request, the kill,
	// the wait for output the caller does not take, the result pipe's.
	bound := timeout + stopGrace + 2*resultGrace + testkit.Bound(5*time.Second)
	tests := []struct {
		name     string
		read     bool // the caller reads its output
		wantCode codes.Code
	}{
		{name: "a caller that reads its output", read: true, wantCode: codes.E307},
		{name: "a caller that reads none of it", wantCode: codes.E307},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer outW.Close()
			defer outR.Close()
			taken := make(chan int64, 1)
			if tt.read {
				go func() {
					n, _ := io.Copy(io.Discard, outR)
					taken <- n
				}()
			}
			done := make(chan supervised, 1)
			t0 := time.Now()
			go func() {
				done <- superviseProgram(t, `s = "x" * 4095
while True:
    print(s)
`, []string{"io"}, func(r *Run) { r.Stdout, r.Timeout = outW, timeout })
			}()
			var s supervised
			select {
			case s = <-done:
			case <-time.After(bound):
				outR.Close() // the relay's write fails: the run can end
				select {
				case <-done:
				case <-time.After(bound):
				}
				t.Fatalf("the run stopped at its timeout %s was still going after %s: its caller's unread output held it", timeout, bound)
			}
			t.Logf("the run ended after %s", time.Since(t0).Round(time.Millisecond))
			if s.rec.Outcome.Code != tt.wantCode {
				t.Errorf("outcome %s %q, want %s\nstderr: %s", s.rec.Outcome.Code, s.rec.Outcome.Message, tt.wantCode, s.stderr)
			}
			// The program printed: the relay delivered some of it.
			if n := s.rec.Observed.StdoutBytes; n == nil || *n == 0 {
				t.Errorf("observed stdout_bytes %v, want what the program printed before it was stopped", n)
			}
			if tt.read {
				outW.Close()
				select {
				case n := <-taken:
					if got := s.rec.Observed.StdoutBytes; got == nil || *got != n {
						t.Errorf("observed stdout_bytes %v, want the %d the caller read", got, n)
					}
				case <-time.After(bound):
					t.Error("the caller's reader did not end once its pipe was closed")
				}
			}
		})
	}
}

// TestRelayedStreamsByPath: each of the caller's files the run's
// standard streams are relayed to (input, output, error) is the run's own
// to the language: a write on its path is refused (use io) and leaves it
// as it was, where the file beside it, under the same grant, is written.
// The control: a file of the same directory that is none of the run's
// streams is written through its path.
func TestRelayedStreamsByPath(t *testing.T) {
	const before = "the caller's\n"
	tests := []struct {
		name     string
		give     func(r *Run, f *os.File) // gives f to the run as one of its streams; nil for none
		wantCode codes.Code               // "" for a run that ends ok
		wantFile string                   // what the caller's file holds after the run
	}{
		{name: "standard input", give: func(r *Run, f *os.File) { r.Stdin = f }, wantCode: codes.E302, wantFile: before},
		{name: "standard output", give: func(r *Run, f *os.File) { r.Stdout = f }, wantCode: codes.E302, wantFile: before},
		{name: "standard error", give: func(r *Run, f *os.File) { r.Stderr = f }, wantCode: codes.E302, wantFile: before},
		{name: "none of the run's streams", wantFile: "forged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			own, beside := filepath.Join(dir, "own.txt"), filepath.Join(dir, "beside.txt")
			if err := os.WriteFile(own, []byte(before), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(own, os.O_RDWR|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s := superviseProgram(t, `fs.write(ARGS[1], "x")
fs.write(ARGS[0], "forged")
`, []string{"fs:write:" + dir}, func(r *Run) {
				r.Args = []string{own, beside}
				if tt.give != nil {
					tt.give(r, f)
				}
			})
			if tt.wantCode != "" {
				wantCode(t, s, tt.wantCode, "use io")
			} else if s.rec.Outcome.Status != receipt.StatusOK {
				t.Fatalf("outcome %s %q, want ok\nstderr: %s", s.rec.Outcome.Code, s.rec.Outcome.Message, s.stderr)
			}
			if data, err := os.ReadFile(beside); err != nil || string(data) != "x" {
				t.Errorf("the file beside holds %q (%v), want x", data, err)
			}
			if data, err := os.ReadFile(own); err != nil || string(data) != tt.wantFile {
				t.Errorf("the caller's file holds %q (%v), want %q", data, err, tt.wantFile)
			}
		})
	}
}
