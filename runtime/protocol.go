package runtime

import (
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
)

// Confine modes of a run.
const (
	ConfineDefault = "default" // the OS policy of the budget, widened by granted modules
	ConfineStrict  = "strict"  // the budget alone: granted modules widen nothing
	ConfineOff     = "off"     // --no-confine
)

// Request is what the supervisor sends the worker on its inherited request
// pipe: everything the worker needs to run, decided by the operator.
type Request struct {
	Program     string        `json:"program"` // absolute path
	Args        []string      `json:"args"`
	Budget      budget.Budget `json:"budget"`
	Cwd         string        `json:"cwd"`
	Home        string        `json:"home"`
	Guarded     []string      `json:"guarded,omitempty"` // locations a broad grant never reaches, beside credentials
	Confine     string        `json:"confine"`           // ConfineDefault, ConfineStrict or ConfineOff
	Require     confine.Level `json:"require,omitempty"` // --require-confinement; "" for none
	Faults      []FaultOp     `json:"faults,omitempty"`  // SABLINE_FAULT_INJECT, parsed
	MaxMemoryMB int           `json:"max_memory_mb,omitempty"`
	// TempDir is the run's private temporary directory, made and removed
	// by the supervisor: a confined worker may not remove it from its parent.
	TempDir string `json:"temp_dir"`
}

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
)

// Outcome is how a run ended.
type Outcome struct {
	Status     string `json:"status"`
	Code       Code   `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
	Position   string `json:"position,omitempty"`
	ExitStatus int    `json:"exit_status"`
	// Stack is the call stack of a run error, innermost first: one
	// "file:line:col in FUNCTION" per frame (Error.Stack).
	Stack []string `json:"stack,omitempty"`
}

// WorkerResult is what the worker sends back on its result pipe.
type WorkerResult struct {
	Outcome     Outcome        `json:"outcome"`
	Files       []FileDigest   `json:"files,omitempty"`
	Effects     []budget.Usage `json:"effects,omitempty"`
	Confinement confine.Result `json:"confinement"`
	Faults      []FaultAttempt `json:"faults,omitempty"`
	Timings     WorkerTimings  `json:"timings"`
}

// WorkerTimings are the worker's own phases, in milliseconds.
type WorkerTimings struct {
	CompileMS float64 `json:"compile_ms"`
	ConfineMS float64 `json:"confine_ms"`
	RunMS     float64 `json:"run_ms"`
}

// outcomeOf makes the Outcome of an error that ended a run.
func outcomeOf(err error) Outcome {
	if err == nil {
		return Outcome{Status: StatusOK, ExitStatus: ExitOK}
	}
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Code: E310, Msg: err.Error()}
	}
	info, _ := Info(e.Code)
	status := StatusFailed
	switch e.Code {
	case E301, E311, E316:
		status = StatusUsage
	case E326:
		status = StatusRefused
	case E307:
		status = StatusTimeout
	case E308:
		status = StatusMemory
	case E309:
		status = StatusKilled
	case E310:
		status = StatusCrashed
	}
	return Outcome{Status: status, Code: e.Code, Message: e.Msg, Position: e.Pos, ExitStatus: info.Exit, Stack: e.Stack}
}
