package runtime

import (
	"fmt"

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
	Program     string        `json:"program"`         // absolute path
	SHA256      string        `json:"sha256"`          // of the bytes the supervisor read: the worker runs these or none
	Piped       bool          `json:"piped,omitempty"` // the program was read from a pipe: it has no directory to load from
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
	// StatusUnfinished is the outcome of a reserved receipt until the run
	// finishes it (E327): a receipt that still says it was left by a run
	// whose supervisor was killed, or could not write.
	StatusUnfinished = "unfinished"
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
	// MemoryLimitHeld is the --max-memory-mb the worker's address space
	// is held to, 0 when none was set.
	MemoryLimitHeld int `json:"memory_limit_held_mb,omitempty"`
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
	case E327:
		status = StatusUnfinished
	}
	return Outcome{Status: status, Code: e.Code, Message: e.Msg, Position: e.Pos, ExitStatus: info.Exit, Stack: e.Stack}
}

// Bounds of one WorkerResult, beside MaxResultBytes for all of them.
const (
	maxResultFiles   = 4096
	maxResultEffects = 4096
	maxResultFaults  = 64
	maxResultLayers  = 16
)

var knownStatuses = []string{StatusOK, StatusFailed, StatusRefused, StatusUsage, StatusTimeout,
	StatusMemory, StatusKilled, StatusCrashed, StatusInternal}

// check reports whether r is a record the worker could have sent: a known
// status and code, an exit status a process can have, a known level, and
// lists within bounds. The supervisor takes nothing from a record that
// fails it.
func (r *WorkerResult) check() error {
	o := r.Outcome
	if o.Status != "" && !contains(knownStatuses, o.Status) {
		return fmt.Errorf("unknown status %q", clip([]byte(o.Status), 40))
	}
	if o.Code != "" {
		if _, ok := Info(o.Code); !ok {
			return fmt.Errorf("unknown error code %q", clip([]byte(o.Code), 40))
		}
	}
	if o.ExitStatus < 0 || o.ExitStatus > 255 {
		return fmt.Errorf("exit status %d is not one a process has", o.ExitStatus)
	}
	if l := r.Confinement.Level; l != "" {
		if _, err := confine.ParseLevel(string(l)); err != nil {
			return fmt.Errorf("unknown confinement level %q", clip([]byte(l), 40))
		}
	}
	switch {
	case len(r.Files) > maxResultFiles:
		return fmt.Errorf("%d files, more than %d", len(r.Files), maxResultFiles)
	case len(r.Effects) > maxResultEffects:
		return fmt.Errorf("%d effects, more than %d", len(r.Effects), maxResultEffects)
	case len(r.Faults) > maxResultFaults:
		return fmt.Errorf("%d fault attempts, more than %d", len(r.Faults), maxResultFaults)
	case len(r.Confinement.Layers) > maxResultLayers:
		return fmt.Errorf("%d layers, more than %d", len(r.Confinement.Layers), maxResultLayers)
	case r.MemoryLimitHeld < 0:
		return fmt.Errorf("memory limit %d", r.MemoryLimitHeld)
	}
	return nil
}
