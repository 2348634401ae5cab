package run

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestSupervisorKeepsNoWorkerEnd: a supervised run leaves no descriptor
// open in the supervisor: the worker's ends of its pipes and of the
// relayed streams are closed once it has started, so a host that runs
// many programs does not run out of them. Counted in /proc/self/fd before
// and after three runs, each with its output relayed; the control is that
// the runs printed, so their streams were there to leak. The collector is
// off meanwhile: a file nobody closed would otherwise be closed by its
// finalizer, and the leak would not be seen.
func TestSupervisorKeepsNoWorkerEnd(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	count := func() int {
		es, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skipf("/proc/self/fd: %v", err)
		}
		return len(es)
	}
	superviseProgram(t, "print('warm')\n", []string{"io"}, nil) // the first run's lasting files
	before := count()
	for range 3 {
		s := superviseProgram(t, "print('ok')\n", []string{"io"}, nil)
		if s.stdout != "ok\n" {
			t.Fatalf("stdout %q, want ok", s.stdout)
		}
	}
	if after := count(); after > before {
		t.Errorf("%d descriptors open after three runs, %d before", after, before)
	}
}
