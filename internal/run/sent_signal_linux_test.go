package run

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit/proc"
	"github.com/sabline/sabline/receipt"
)

// TestWorkerSentASignal: a worker sent a signal from outside that its Go
// runtime catches (SIGSEGV, SIGQUIT: the runtime reports it and exits 2)
// ends the run as a signal that kills it does: E309, exit status 128+N,
// the signal named. They were E310, exit 126, "a fault in Sabline or in a
// host module: report it". The control: SIGKILL, which the runtime never
// sees, is E309 and 137, seen in the kernel's wait.
func TestWorkerSentASignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGSEGV, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			ended, cwd := make(chan struct{}), make(chan string, 1)
			var s supervised
			go func() {
				defer close(ended)
				s = superviseProgram(t, marksStart+spin, []string{"fs:write:."},
					func(r *Run) { cwd <- r.Cwd })
			}()
			if waitFile(t, filepath.Join(<-cwd, startedFile), ended) == nil {
				<-ended
				return
			}
			worker, ok := proc.Worker(os.Getpid())
			if !ok {
				t.Fatal("no worker found")
			}
			if err := syscall.Kill(worker, sig); err != nil {
				t.Fatal(err)
			}
			<-ended
			o := s.stored(t)
			t.Logf("outcome %s %s %q, exit %d; observed %q", o.Outcome.Status, o.Outcome.Code,
				o.Outcome.Message, o.Outcome.ExitStatus, observedEnd(o.Observed))
			want := 128 + int(sig)
			if o.Outcome.Status != receipt.StatusKilled || o.Outcome.Code != codes.E309 ||
				o.Outcome.ExitStatus != want || !strings.Contains(o.Outcome.Message, sig.String()) {
				t.Errorf("outcome %s %s %q, exit %d; want killed, E309 naming %q, exit %d",
					o.Outcome.Status, o.Outcome.Code, o.Outcome.Message, o.Outcome.ExitStatus, sig, want)
			}
		})
	}
}

// TestSentSignal: a Go crash report says a signal was sent (si_code
// SI_USER or SI_TKILL) only on its first two lines as the runtime writes
// them; a fault of the process's own (a positive si_code), a fatal error
// and a panic are not.
func TestSentSignal(t *testing.T) {
	tests := []struct {
		report string
		want   int
	}{
		{"SIGSEGV: segmentation violation\nPC=0x48dd41 m=0 sigcode=0 addr=0x7732\n", 11},
		{"\nSIGQUIT: quit\nPC=0x48dd41 m=0 sigcode=0\n\ngoroutine 1", 3},
		{"SIGABRT: abort\nPC=0x48dd41 m=3 sigcode=-6\n", 6},
		{"SIGSEGV: segmentation violation\nPC=0x48dd41 m=0 sigcode=1 addr=0x0\n", 0},
		{"SIGSEGV: segmentation violation\nsigcode=0\n", 0},
		{"fatal error: runtime: out of memory\n", 0},
		{"panic: SIGSEGV: x\nPC=0x1 m=0 sigcode=0\n", 0},
	}
	for _, tt := range tests {
		got, ok := sentSignal(tt.report)
		if got != tt.want || ok != (tt.want != 0) {
			t.Errorf("sentSignal(%q) = %d, %v; want %d", tt.report, got, ok, tt.want)
		}
	}
}
