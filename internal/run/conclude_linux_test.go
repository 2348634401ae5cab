package run

import (
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/receipt"
)

// TestFinalRecordAgainstTheExit: a final record that says the run ended
// ok (written by the program on the result pipe, with raw system calls,
// as the worker's own would be) is taken only when the worker's exit
// agrees: one that then exits 7 is E310, saying both statuses, and one
// that is then killed is E309; neither outcome is the worker's word. The
// control: the same record, then exit 0, is an ok receipt whose outcome
// is the worker's word. A record whose effects count a grant its budget
// has not is E310 too. (Linux: the calls are named as Linux names them.)
func TestFinalRecordAgainstTheExit(t *testing.T) {
	const record = `c = ffi.module("ctypes")
r = '{"outcome":{"status":"ok","exit_status":0},"effects":[]}\n'
c.syscall("write", 4, r, len(r))
`
	tests := []struct {
		name            string
		then            string // the program's last line, after the record
		wantStatus      string
		wantCode        codes.Code
		wantMsg         string
		wantEnd         string // as the observed part says it
		wantOutcomeSaid bool   // the outcome is named among the reported fields
	}{
		{name: "then exits 0", then: `c.syscall("exit_group", 0)`, wantStatus: receipt.StatusOK,
			wantEnd: "exit 0", wantOutcomeSaid: true},
		{name: "then exits 7", then: `c.syscall("exit_group", 7)`, wantStatus: receipt.StatusCrashed, wantCode: codes.E310,
			wantMsg: "the worker's result says exit status 0, but it exited with 7", wantEnd: "exit 7"},
		{name: "then is killed", then: `c.syscall("kill", c.syscall("getpid").ret, 9)`, wantStatus: receipt.StatusKilled, wantCode: codes.E309,
			wantMsg: "killed by signal 9", wantEnd: "signal killed"},
		// Effects that count a grant the budget has not are no count the
		// worker makes (budget.Meter.Usage): a forger's word past what
		// a report can say.
		{name: "then another that counts a grant not in its budget, then exits 0",
			then: `r = '{"outcome":{"status":"ok","exit_status":0},"effects":[{"grant":"net","uses":1}]}\n'
c.syscall("write", 4, r, len(r))
c.syscall("exit_group", 0)`, wantStatus: receipt.StatusCrashed, wantCode: codes.E310,
			wantMsg: "effect 0 is not a count of a grant of the run's budget", wantEnd: "exit 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, record+tt.then+"\n", []string{"io", "ffi:ctypes"}, nil)
			o := s.stored(t)
			t.Logf("outcome %s %s %q; observed %q; reported %q", o.Outcome.Status, o.Outcome.Code, o.Outcome.Message, observedEnd(o.Observed), o.Reported.Fields)
			if o.Outcome.Status != tt.wantStatus || o.Outcome.Code != tt.wantCode || !strings.Contains(o.Outcome.Message, tt.wantMsg) {
				t.Errorf("outcome %s %s %q, want %s %s containing %q\nstderr: %s", o.Outcome.Status, o.Outcome.Code, o.Outcome.Message,
					tt.wantStatus, tt.wantCode, tt.wantMsg, s.stderr)
			}
			if got := observedEnd(o.Observed); got != tt.wantEnd {
				t.Errorf("observed end %q, want %q", got, tt.wantEnd)
			}
			if got := slices.Contains(o.Reported.Fields, receipt.FieldOutcome); got != tt.wantOutcomeSaid {
				t.Errorf("reported fields %q: the outcome named among them %v, want %v", o.Reported.Fields, got, tt.wantOutcomeSaid)
			}
		})
	}
}
