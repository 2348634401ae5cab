package run

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt"
)

// TestTimeoutAfterTheProgramsEnd: a stop that reaches the worker once its
// program has ended (its timeout passing as the program ends) stops
// nothing, and the run is the program's own end, on the command line and
// in a pool (whose run's output was dropped too). The race is made sure
// of here: the program takes the stop pipe from the worker (raw calls,
// under --no-confine) and ends once the stop's line comes, so its worker
// answers the stop with its own end, ok, and exits 0. The run was E307,
// exit 124, "was stopped", with neither a position nor the words that
// say where the program was is not known. The control: a program that
// is still running when its timeout passes is stopped, E307, at its
// loop's line. (A final record the program forged before it was stopped,
// which its worker's exit then disagrees with, leaves the run E307:
// TestWorkerLifeCycle, "a forged final record, the pipe closed, then
// running on".)
func TestTimeoutAfterTheProgramsEnd(t *testing.T) {
	s := superviseProgram(t, takesTheStop, []string{"io", "ffi:ctypes"},
		func(r *Run) { r.Timeout = 2 * time.Second })
	o := s.stored(t)
	t.Logf("outcome %s %s %q at %q, exit %d; observed %q; stdout %q", o.Outcome.Status, o.Outcome.Code,
		o.Outcome.Message, o.Outcome.Position, o.Outcome.ExitStatus, observedEnd(o.Observed), s.stdout)
	if !strings.HasPrefix(s.stdout, "ended by itself 5") || observedEnd(o.Observed) != "exit 0" {
		t.Fatalf("stdout %q, observed %q: want the program to have read the stop and ended by itself\n"+
			"stderr: %s", s.stdout, observedEnd(o.Observed), s.stderr)
	}
	wantItsOwnEnd(t, "the command line", o)

	dir := t.TempDir()
	p, err := StartPool(PoolConfig{Budget: budget.MustParse(dir, "io", "ffi:ctypes"), Workers: 1,
		Confine: core.ModeOff, Timeout: 2 * time.Second, ImportRoot: dir, Cwd: dir,
		Receipts: t.TempDir(), OnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := p.Run(context.Background(), PoolRun{Program: "p.vel", Source: []byte(takesTheStop)})
	if err != nil {
		t.Fatal(err)
	}
	o = res.Receipt
	t.Logf("pooled: outcome %s %s %q, exit %d; observed %q; stdout %q", o.Outcome.Status,
		o.Outcome.Code, o.Outcome.Message, o.Outcome.ExitStatus, observedEnd(o.Observed), res.Stdout)
	wantItsOwnEnd(t, "the pool", o)
	if !strings.HasPrefix(string(res.Stdout), "ended by itself 5") {
		t.Errorf("pooled: stdout %q, want the program's", res.Stdout)
	}

	const spins = "while True:\n    pass\n"
	s = superviseProgram(t, spins, []string{"io"}, func(r *Run) { r.Timeout = 300 * time.Millisecond })
	o = s.stored(t)
	if o.Outcome.Code != codes.E307 || o.Outcome.ExitStatus != codes.ExitTimeout ||
		!strings.Contains(o.Outcome.Position, "p.vel:1:") {
		t.Errorf("the control: outcome %s %q at %q, exit %d; want E307, exit 124, at the loop's line",
			o.Outcome.Code, o.Outcome.Message, o.Outcome.Position, o.Outcome.ExitStatus)
	}
}

// takesTheStop takes its worker's stop pipe (descriptor 5) for itself:
// a descriptor of its own on the pipe, /dev/null in the worker's place.
// It ends once the stop's line comes, so that its worker answers the
// stop with the program's own end.
const takesTheStop = `c = ffi.module("ctypes")
own = c.syscall("openat", -100, "/proc/self/fd/5", 0).ret
null = c.syscall("openat", -100, "/dev/null", 0).ret
c.syscall("dup3", null, 5, 0)
r = c.syscall("read", own, "xxxxxxxx", 8)
print("ended by itself", r.ret)
`

// wantItsOwnEnd holds a run whose program ended as its stop came to the
// program's own end: ok, exit 0, the outcome named as the worker's word,
// testimony under ffi:ctypes.
func wantItsOwnEnd(t *testing.T, where string, o *receipt.Receipt) {
	t.Helper()
	if o.Outcome.Status != receipt.StatusOK || o.Outcome.ExitStatus != 0 {
		t.Errorf("%s: outcome %s %s %q, exit %d; want ok, exit 0: the program ended before the "+
			"stop reached it", where, o.Outcome.Status, o.Outcome.Code, o.Outcome.Message,
			o.Outcome.ExitStatus)
	}
	if !slices.Contains(o.Reported.Fields, receipt.FieldOutcome) || o.Reported.Testimony == "" {
		t.Errorf("%s: reported %+v: want the outcome named as the worker's word, testimony under "+
			"ffi:ctypes", where, o.Reported)
	}
}
