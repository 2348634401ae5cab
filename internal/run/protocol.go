package run

import (
	"fmt"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// CheckConfine refuses (E301) a confinement mode that is not one of the
// three, a required level that is not full or partial, and a required
// level beside confine.ModeOff, which asks for none.
func CheckConfine(mode confine.Mode, require confine.Level) error {
	switch mode {
	case confine.ModeDefault, confine.ModeStrict, confine.ModeOff:
	default:
		return codes.Errorf(codes.E301, "confine %q: want %s, %s or %s", mode, confine.ModeDefault, confine.ModeStrict, confine.ModeOff)
	}
	if require == "" {
		return nil
	}
	if l, err := confine.ParseLevel(string(require)); err != nil || l == confine.None {
		return codes.Errorf(codes.E301, "required level %q: want full or partial", require)
	}
	if mode == confine.ModeOff {
		return codes.Errorf(codes.E301, "confine %s asks for no confinement, and the required level %s for some: give one or the other", confine.ModeOff, require)
	}
	return nil
}

// request is what the supervisor sends the worker on its inherited request
// pipe: everything the worker needs to run, decided by the operator.
type request struct {
	Program string        `json:"program"`         // absolute path
	SHA256  string        `json:"sha256"`          // of the bytes the supervisor read: the worker runs these or none
	Piped   bool          `json:"piped,omitempty"` // the program was read from a pipe: it has no directory to load from
	Args    []string      `json:"args"`
	Budget  budget.Budget `json:"budget"`
	Cwd     string        `json:"cwd"`
	// Guard is what no grant reaches, resolved by the supervisor when the
	// run started: the language refuses it, and Landlock's rules are
	// carved around it.
	Guard *guard.Set `json:"guard"`
	// Admitted are the granted paths as they resolved when the run (or
	// its pool) was admitted: the worker withholds from the kernel's
	// ruleset a grant that resolves otherwise when it starts.
	Admitted    map[string]string `json:"admitted,omitempty"`
	Confine     confine.Mode      `json:"confine"`           // confine.ModeDefault, ModeStrict or ModeOff
	Require     confine.Level     `json:"require,omitempty"` // --require-confinement; "" for none
	Faults      []receipt.FaultOp `json:"faults,omitempty"`  // SABLINE_FAULT_INJECT, parsed
	MaxMemoryMB int               `json:"max_memory_mb,omitempty"`
	// TempDir is the run's private temporary directory, made and removed
	// by the supervisor: a confined worker may not remove it from its parent.
	TempDir string `json:"temp_dir"`
	// Policy is the OS policy the supervisor derived from the budget,
	// the one document the worker applies; PolicySHA256 is its digest as
	// the receipt records it. Both are absent under confine.ModeOff.
	Policy       *confine.Policy `json:"policy,omitempty"`
	PolicySHA256 string          `json:"policy_sha256,omitempty"`
	// Pool makes the worker a pool worker: confined once, it then reads
	// jobs, one per line, until the pipe closes (servePool).
	Pool bool `json:"pool,omitempty"`
	// Source, when set, is the program's text (Run.Source): the worker
	// compiles it as Program, its loads read beneath Program's directory.
	Source []byte `json:"source,omitempty"`
	// Procs, when set, is the GOMAXPROCS the worker takes once it is
	// confined: it was started on one (see oneProc).
	Procs int `json:"procs,omitempty"`
	// Relayed are the caller's files the worker's standard streams are
	// relayed to: its file effects refuse them as the run's own.
	Relayed []lang.FileID `json:"relayed,omitempty"`
}

// workerResult is what the worker sends back on its result pipe.
type workerResult struct {
	Outcome     receipt.Outcome        `json:"outcome"`
	Files       []program.FileDigest   `json:"files,omitempty"`
	Effects     []budget.Usage         `json:"effects,omitempty"`
	Confinement confine.Result         `json:"confinement"`
	Faults      []receipt.FaultAttempt `json:"faults,omitempty"`
	Timings     receipt.WorkerTimings  `json:"timings"`
	// MemoryLimitHeld is the --max-memory-mb the worker's address space
	// is held to, 0 when none was set.
	MemoryLimitHeld int `json:"memory_limit_held_mb,omitempty"`
}

// Bounds of one workerResult, beside MaxResultBytes for all of them.
const (
	maxResultFiles   = 4096
	maxResultEffects = 4096
	maxResultFaults  = 64
	maxResultLayers  = 16
)

// check reports whether r is a record the worker could have sent: a known
// status and code, an exit status a process can have, a known level, and
// lists and an outcome within bounds (codes.Error.Bounded). The supervisor
// takes nothing from a record that fails it.
func (r *workerResult) check() error {
	o := r.Outcome
	if o.Status != "" && !contains(receipt.Statuses, o.Status) {
		return fmt.Errorf("unknown status %q", clip([]byte(o.Status), 40))
	}
	if o.Code != "" {
		if _, ok := codes.Info(o.Code); !ok {
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
		if err := r.Confinement.Check(); err != nil {
			return fmt.Errorf("confinement: %w", err)
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
	case len(o.Message) > codes.MaxMessageBytes || len(o.Position) > codes.MaxFrameBytes || len(o.Stack) > codes.MaxStackFrames:
		return fmt.Errorf("an outcome past the bounds a worker holds it to: a message of %d bytes, a position of %d, %d frames",
			len(o.Message), len(o.Position), len(o.Stack))
	}
	for _, fr := range o.Stack {
		if len(fr) > codes.MaxFrameBytes {
			return fmt.Errorf("a frame of %d bytes, more than %d", len(fr), codes.MaxFrameBytes)
		}
	}
	return nil
}

// Testimony says why what a run under b reports once its program has
// started (its outcome and effects, as its worker sends them) is
// testimony: the program ran code no budget check holds (any ffi grant, as
// widens says; any code at all in a knock-out build), which could have
// written that report itself. "" when it could not.
func Testimony(b budget.Budget) string {
	if program.Knockout {
		return "a knock-out build holds the program to no grant: it could make raw system calls and write the report itself"
	}
	if !widens(b) {
		return ""
	}
	return b.Of(budget.FFI)[0].String() + " is granted: host code no budget check holds ran beside the program, and could have written the report itself"
}
