package receipt

import (
	"errors"
	"time"

	"github.com/sabline/sabline/codes"
)

// Outcome statuses.
const (
	StatusOK       = "ok"       // the program ran to its end
	StatusFailed   = "failed"   // the program failed or was refused an effect
	StatusRefused  = "refused"  // the run was refused before its first statement
	StatusUsage    = "usage"    // the command line was wrong; nothing ran
	StatusTimeout  = "timeout"  // E307
	StatusMemory   = "memory"   // E308
	StatusKilled   = "killed"   // E309
	StatusCrashed  = "crashed"  // E310
	StatusInternal = "internal" // the supervisor itself failed
	// StatusUnfinished is the outcome of a reserved receipt until the run
	// finishes it (E327): a receipt that still says it was left by a run
	// whose supervisor was killed, or could not write.
	StatusUnfinished = "unfinished"
)

// Outcome is how a run ended.
type Outcome struct {
	Status     string     `json:"status"`
	Code       codes.Code `json:"code,omitempty"`
	Message    string     `json:"message,omitempty"`
	Position   string     `json:"position,omitempty"`
	ExitStatus int        `json:"exit_status"`
	// Stack is the call stack of a run error, innermost first: one
	// "file:line:col in FUNCTION" per frame (Error.Stack).
	Stack []string `json:"stack,omitempty"`
	// Do is what to do about the error, where the error said it itself
	// (codes.Error.Do): for the process that ran the run to print, never
	// written in a receipt, whose readers have the code's own advice.
	Do string `json:"-"`
}

// Statuses are every status a finished run can have: a worker's record
// naming another is not one it could have sent.
var Statuses = []string{StatusOK, StatusFailed, StatusRefused, StatusUsage, StatusTimeout,
	StatusMemory, StatusKilled, StatusCrashed, StatusInternal}

// WorkerTimings are the worker's own phases, in milliseconds.
type WorkerTimings struct {
	CompileMS float64 `json:"compile_ms"`
	ConfineMS float64 `json:"confine_ms"`
	RunMS     float64 `json:"run_ms"`
}

// MS is d in the milliseconds a receipt's timings are written in, to the
// microsecond.
func MS(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// OutcomeOf makes the Outcome of an error that ended a run, its message,
// position and stack within codes' bounds (codes.Error.Bounded).
func OutcomeOf(err error) Outcome {
	if err == nil {
		return Outcome{Status: StatusOK, ExitStatus: codes.ExitOK}
	}
	var e *codes.Error
	if !errors.As(err, &e) {
		e = &codes.Error{Code: codes.E310, Msg: err.Error()}
	}
	e = e.Bounded()
	info, _ := codes.Info(e.Code)
	status := StatusFailed
	switch e.Code {
	case codes.E301, codes.E311, codes.E316, codes.E328, codes.E329, codes.E331, codes.E336,
		codes.E337:
		status = StatusUsage
	case codes.E326:
		status = StatusRefused
	case codes.E307:
		status = StatusTimeout
	case codes.E308:
		status = StatusMemory
	case codes.E309:
		status = StatusKilled
	case codes.E310:
		status = StatusCrashed
	case codes.E327:
		status = StatusUnfinished
	}
	return Outcome{
		Status:     status,
		Code:       e.Code,
		Message:    e.Msg,
		Position:   e.Pos,
		ExitStatus: info.Exit,
		Stack:      e.Stack,
		Do:         e.Do,
	}
}

// FaultOp is one operation of SABLINE_FAULT_INJECT.
type FaultOp struct {
	Op     string `json:"op"`
	Target string `json:"target"`
}

// Fault outcomes.
const (
	FaultWent    = "went-through" // the operation succeeded
	FaultRefused = "refused"      // a confinement layer refused it
	FaultFailed  = "failed"       // it failed for its own reasons
)

// FaultAttempt is what became of one operation.
type FaultAttempt struct {
	FaultOp
	Result string   `json:"result"`
	Errno  string   `json:"errno,omitempty"`
	Error  string   `json:"error,omitempty"`
	Layers []string `json:"layers,omitempty"` // the layers that refused it
}

// unfinished is the outcome a reserved skeleton carries until its run's
// receipt is finished: who, stopped or unable to write, left it so.
// Every run whose receipt a store keeps reserves one, so its message is
// joined, not formatted.
func unfinished(rec *Receipt, who string) Outcome {
	return OutcomeOf(&codes.Error{Code: codes.E327, Msg: "the run started at " +
		rec.Timings.Started.Format(time.RFC3339) + " and its receipt was not finished: " + who +
		" was stopped, or could not write it"})
}
