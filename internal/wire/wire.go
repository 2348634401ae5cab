// Package wire is what the supervisor and its worker say to each other,
// and the one place the supervisor reads what a worker wrote. The
// supervisor sends a [Request] (and, to a pool worker, one [Job] per run);
// the worker answers with [Record]s (a pool worker with one [JobResult]
// per job). A worker runs a program that may hold raw system calls, so
// every record is bounded ([MaxResultBytes], [MaxJobResultBytes]) and
// checked ([Record.Check], [JobResult.Check]) before anything is taken
// from it, and the parsers here ([ReadResults], [ParseJobResult],
// [ReadLine], [DecodeRequest], [DecodeJob]) are fuzzed.
//
// # Without reflection
//
// A worker reads its request and jobs with [DecodeRequest] and
// [DecodeJob] and writes its records and job results with [AppendRecord]
// and [AppendJobResult]; a pool writes its jobs with [AppendJob] and
// reads their results with [ParseJobResult]. None uses encoding/json: in
// a process that has just started, encoding/json's first meeting with
// each type costs more than the bytes. Each is held to encoding/json's
// reading or writing of the same types, field by field and under fuzzing,
// so that the struct tags stay the one description of the wire's fields.
//
// # Trust
//
// The first record is the worker's own, sent once it is confined and
// before the program's first statement; a later one may have been written
// by the program. [ReadResults] takes from a later record only what the
// end of a run says, and says whether it did. Beside the pipes, a pool
// worker keeps one word on a page it shares with its supervisor (Linux):
// the count of jobs it has begun ([Began]), read once after it died.
package wire

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// CrashFile is the file in the run's temporary directory where the worker's
// Go runtime writes a fatal error: the worker's own standard error (the
// descriptor the Go runtime writes its crash reports to) is this file, so
// that no Go crash dump reaches the operator's terminal. The worker's own
// messages go to the standard error it inherited. The supervisor reads at
// most run.MaxCrashReportBytes of it.
const CrashFile = "worker-crash.txt"

// WorkerArg is the hidden first argument that makes the sabline binary a
// worker. The supervisor starts the worker with it; nothing else should.
const WorkerArg = "__sabline_worker"

// WorkerMarker is set in every worker's environment (to the run id, or
// "pool"). A process that has it and is asked to start a run is a worker
// whose host program never handed control to Sabline: its main ran again
// instead of the worker, and starting a run from there would start
// another worker, and so on without end.
const WorkerMarker = "SABLINE_WORKER"

// MaxResultBytes is the most the supervisor reads from the result pipe:
// a worker that writes more is stopped.
const MaxResultBytes = 1 << 20

// Request is what the supervisor sends the worker on its inherited request
// pipe: everything the worker needs to run, decided by the operator.
type Request struct {
	Program string `json:"program"` // absolute path
	// of the bytes the supervisor read: the worker runs these or none
	SHA256 string `json:"sha256"`
	// the program was read from a pipe: it has no directory to load from
	Piped  bool          `json:"piped,omitempty"`
	Args   []string      `json:"args"`
	Budget budget.Budget `json:"budget"`
	Cwd    string        `json:"cwd"`
	// Guard is what no grant reaches, resolved by the supervisor when the
	// run started: the language refuses it, and Landlock's rules are
	// carved around it.
	Guard *guard.Wire `json:"guard"`
	// Admitted are the granted paths as they resolved when the run (or
	// its pool) was admitted: the worker withholds from the kernel's
	// ruleset a grant that resolves otherwise when it starts.
	Admitted map[string]string `json:"admitted,omitempty"`
	// core.ModeDefault, ModeStrict or ModeOff
	Confine core.Mode `json:"confine"`
	// Require is the least level the worker must be held at before the
	// program's first statement: the one asked for (--require-confinement),
	// or, with Expected, the one this machine holds the policy at
	// (confine.Expected); "" or none for no least level.
	Require core.Level `json:"require,omitempty"`
	// Expected says Require is the level this machine holds the policy
	// at, which the run did not ask for: the limits the language alone
	// holds are left out of it (confine.Expected), and out of the
	// worker's level it is judged against; the refusal says how to run it
	// held less.
	Expected bool `json:"expected,omitempty"`
	// Layers are, with Expected, the layers that hold a limit this
	// machine holds the policy with (Landlock at its ABI, seccomp): one
	// the worker does not hold refuses it, whatever its level.
	Layers      []string          `json:"layers,omitempty"`
	Faults      []receipt.FaultOp `json:"faults,omitempty"` // SABLINE_FAULT_INJECT, parsed
	MaxMemoryMB int               `json:"max_memory_mb,omitempty"`
	// TempDir is the run's private temporary directory, made and removed
	// by the supervisor: a confined worker may not remove it from its parent.
	TempDir string `json:"temp_dir"`
	// Policy is the OS policy the supervisor derived from the budget,
	// the one document the worker applies; PolicySHA256 is its digest as
	// the receipt records it. Both are absent under core.ModeOff.
	Policy       *core.Policy `json:"policy,omitempty"`
	PolicySHA256 string       `json:"policy_sha256,omitempty"`
	// Pool makes the worker a pool worker: confined once, it then reads
	// jobs, one per line, until the pipe closes (servePool).
	Pool bool `json:"pool,omitempty"`
	// Source, when set, is the program's text (Run.Source): the worker
	// compiles it as Program, its loads read beneath Program's directory.
	Source []byte `json:"source,omitempty"`
	// Procs, when set, is the GOMAXPROCS the worker takes once it is
	// confined: it was started on one (see oneProc).
	Procs int `json:"procs,omitempty"`
	// Deadline, when set, is the run's deadline on the machine's
	// monotonic clock (MonotonicNow), no earlier than the supervisor's
	// own: the worker does not begin the program once it has passed, for
	// the supervisor's stop (StopLine) may still wait in the pipe, unread,
	// as the program would begin.
	Deadline int64 `json:"deadline_ns,omitempty"`
	// Relayed are the caller's files the worker's standard streams are
	// relayed to: its file effects refuse them as the run's own.
	Relayed []lang.FileID `json:"relayed,omitempty"`
}

// PolicyRecorded reports whether Policy is the policy whose digest is
// PolicySHA256, the one the receipt records: its canonical document
// (core.Policy.JSON) hashes to it. The document is written here without
// reflection (appendPolicy, whose bytes are core.Policy.JSON's), for a
// worker asks this in a process where encoding/json has met no type yet.
func (r *Request) PolicyRecorded() bool {
	if r.Policy == nil || r.PolicySHA256 == "" {
		return false
	}
	sum := sha256.Sum256(appendPolicy(nil, r.Policy))
	return hex.EncodeToString(sum[:]) == r.PolicySHA256
}

// Record is what the worker sends back on its result pipe.
type Record struct {
	Outcome     receipt.Outcome        `json:"outcome"`
	Files       []program.FileDigest   `json:"files,omitempty"`
	Effects     []budget.Usage         `json:"effects,omitempty"`
	Confinement core.Result            `json:"confinement"`
	Faults      []receipt.FaultAttempt `json:"faults,omitempty"`
	Timings     receipt.WorkerTimings  `json:"timings"`
	// MemoryLimitHeld is the --max-memory-mb the worker's address space
	// is held to, 0 when none was set.
	MemoryLimitHeld int `json:"memory_limit_held_mb,omitempty"`
}

// Bounds of one Record, beside MaxResultBytes for all of them.
const (
	maxResultFiles   = program.MaxFiles
	maxResultEffects = budget.MaxItems
	maxResultFaults  = 64
	maxResultLayers  = 16
)

// Check reports whether r is a record the worker could have sent: a known
// status and code, an exit status a process can have, a known level, and
// lists and an outcome within bounds (codes.Error.Bounded). The supervisor
// takes nothing from a record that fails it.
func (r *Record) Check() error {
	o := r.Outcome
	if o.Status != "" && !slices.Contains(receipt.Statuses, o.Status) {
		return fmt.Errorf("unknown status %q", Clip([]byte(o.Status), 40))
	}
	if o.Code != "" {
		if _, ok := codes.Info(o.Code); !ok {
			return fmt.Errorf("unknown error code %q", Clip([]byte(o.Code), 40))
		}
	}
	if o.ExitStatus < 0 || o.ExitStatus > 255 {
		return fmt.Errorf("exit status %d is not one a process has", o.ExitStatus)
	}
	if l := r.Confinement.Level; l != "" {
		if _, err := core.ParseLevel(string(l)); err != nil {
			return fmt.Errorf("unknown confinement level %q", Clip([]byte(l), 40))
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
	case len(o.Message) > codes.MaxMessageBytes || len(o.Position) > codes.MaxFrameBytes ||
		len(o.Stack) > codes.MaxStackFrames:
		return fmt.Errorf("an outcome past the bounds a worker holds it to: a message of %d bytes, "+
			"a position of %d, %d frames", len(o.Message), len(o.Position), len(o.Stack))
	}
	for _, fr := range o.Stack {
		if len(fr) > codes.MaxFrameBytes {
			return fmt.Errorf("a frame of %d bytes, more than %d", len(fr), codes.MaxFrameBytes)
		}
	}
	return nil
}

// Job is one program a pool worker runs: a line on the request pipe after
// the pool's own request. The supervisor has read the program already
// (beneath the import root, when the pool has one) and checked that the
// budget is beneath the pool's.
type Job struct {
	Program string        `json:"program"` // absolute: the name positions and digests carry
	Source  []byte        `json:"source"`
	Root    string        `json:"root"` // loads are read beneath it
	Args    []string      `json:"args"`
	Stdin   []byte        `json:"stdin,omitempty"`
	Budget  budget.Budget `json:"budget"`
	Cwd     string        `json:"cwd"`
	// Keep says the supervisor read the program from the file its caller
	// named (no caller handed its text in): the worker may take its files
	// compiled from its cache, and leave them there (lang.Config.KeepCompiled).
	Keep bool `json:"keep,omitempty"`
}

// JobResult is what a pool worker sends back for one job: one line on the
// result pipe.
type JobResult struct {
	Outcome receipt.Outcome      `json:"outcome"`
	Files   []program.FileDigest `json:"files,omitempty"`
	Effects []budget.Usage       `json:"effects,omitempty"`
	Stdout  []byte               `json:"stdout,omitempty"`
	// the program printed more than MaxPoolOutputBytes
	Clipped bool `json:"clipped,omitempty"`
	// StdoutBytes is, with Clipped, what the program printed in all, of
	// which Stdout holds the first MaxPoolOutputBytes (receipt.StdoutCut).
	StdoutBytes int64                 `json:"stdout_bytes,omitempty"`
	Timings     receipt.WorkerTimings `json:"timings"`
}

// MaxPoolOutputBytes is the most of a pooled run's standard output the
// worker keeps and sends back; the rest is dropped and the result says so.
const MaxPoolOutputBytes = 1 << 20

// MaxPoolInputBytes is the most standard input a pooled run is given:
// it travels in the job, whole, before the program starts. It is below
// the largest body a door reads: a door's client meets it too (E301,
// with its receipt).
const MaxPoolInputBytes = 4 << 20

// MaxJobResultBytes bounds one result line of a pool worker: the output,
// and room for the rest.
const MaxJobResultBytes = MaxPoolOutputBytes*4/3 + MaxResultBytes

// Check reports whether r is a result a pool worker could have sent (see
// Record.Check).
func (r *JobResult) Check() error {
	w := Record{Outcome: r.Outcome, Files: r.Files, Effects: r.Effects}
	if r.Outcome.Status == "" {
		return fmt.Errorf("a result without a status")
	}
	if len(r.Stdout) > MaxPoolOutputBytes {
		return fmt.Errorf("%d bytes of output, more than %d", len(r.Stdout), MaxPoolOutputBytes)
	}
	if r.Clipped != (r.StdoutBytes > int64(len(r.Stdout))) || r.StdoutBytes < 0 ||
		r.Clipped && len(r.Stdout) != MaxPoolOutputBytes {
		return fmt.Errorf("%d bytes of output of %d printed, clipped %t: not what a worker keeps",
			len(r.Stdout), r.StdoutBytes, r.Clipped)
	}
	return w.Check()
}

// MaxJobResultLines bounds the lines read from a worker whose run may
// have written on its result pipe itself.
const MaxJobResultLines = 64

// ParseJobResult reads one result line of a pool worker: JSON of a
// JobResult, with nothing but white space after it, that passes its
// check. The line comes from a worker that may have run raw system
// calls: nothing in it is taken unless all of it is a result the worker
// could have sent.
func ParseJobResult(line []byte) (JobResult, error) {
	r, err := decodeLine(line, MaxJobResultBytes, "result", (*decoder).jobResult)
	if err != nil {
		return JobResult{}, fmt.Errorf("record %q...: %w", Clip(line, 40), err)
	}
	if err := r.Check(); err != nil {
		return JobResult{}, err
	}
	return r, nil
}

// StopLine is the line the supervisor writes on a worker's stop pipe, a
// pipe that carries nothing else, to ask it to end its program where it
// is: at the run's deadline, or when the run's caller cancels it; a
// worker that has not answered within the supervisor's grace is killed.
// A stop written before the worker reads the pipe waits there; the
// command line's worker reads it from its run's start, a pool worker from
// the moment it is ready for jobs. The command line's worker keeps a stop that comes
// before its program begins; a pool worker keeps one that comes once it
// has read a job, and drops one that comes between two (see
// internal/worker's stopper).
const StopLine = "stop\n"

// ErrRecordTooLong is ReadLine's error for a line past its bound.
var ErrRecordTooLong = errors.New("a record past its bound")

// ReadLine reads one line of at most limit bytes.
func ReadLine(r *bufio.Reader, limit int) ([]byte, error) { return AppendLine(nil, r, limit) }

// AppendLine reads one line of at most limit bytes, as ReadLine does, and
// appends it to line: a reader of many lines that keeps none of them
// reads each into the buffer of the one before (line[:0]), where
// ReadLine makes each anew, growing it as it comes, a piece of 64 KiB at
// a time (a line of 2.4 MB took 12.7 MB of allocations, and three times
// the processor time of its parse).
func AppendLine(line []byte, r *bufio.Reader, limit int) ([]byte, error) {
	start := len(line)
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line)-start > limit {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrRecordTooLong, limit)
		}
		if err == nil {
			return line, nil
		}
		if err != bufio.ErrBufferFull {
			return nil, err
		}
	}
}

// ReadResults reads the records a worker sent. The first is the worker's
// own: sent once the run is confined, before the program's first statement,
// or as the final record of a run that ended before it. A program with raw
// system calls (under ffi:ctypes or ffi:os) can write on the pipe too, so a
// later record is taken only for what the end of a run says (the outcome,
// the effects, the timings), never for the confinement, the files or the
// fault attempts; and of those, the last final record counts, since the
// worker sends its own last and then closes the pipe. Every record is
// checked (see Record.Check); the first that fails is bad, and then
// nothing after it is taken. after says the final record taken came after
// the first: the program could have run, and written it. raw is at most
// MaxResultBytes (the caller bounds it).
func ReadResults(raw []byte) (res Record, final, after bool, bad error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	for first := true; ; first = false {
		var r Record
		if err := dec.Decode(&r); err != nil {
			if err != io.EOF {
				bad = fmt.Errorf("record %q...: %w", Clip(raw[dec.InputOffset():], 40), err)
			}
			return res, final, after, bad
		}
		if err := r.Check(); err != nil {
			return res, final, after, err
		}
		switch {
		case first:
			res, final = r, r.Outcome.Status != ""
		case r.Outcome.Status != "":
			res.Outcome, res.Effects, res.Timings, final, after = r.Outcome, r.Effects, r.Timings, true, true
		}
	}
}

// Clip is at most the first n bytes of b, as text: a part of what a
// worker wrote, for a message.
func Clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
