package runtime

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
)

// Run is one run as the operator asked for it.
type Run struct {
	Program     string        // path of the .vel file
	Args        []string      // the program's arguments, after --
	Budget      budget.Budget // parsed --allow
	Cwd         string        // absolute
	Confine     string        // ConfineDefault, ConfineStrict or ConfineOff
	Require     confine.Level // --require-confinement, "" for none
	Faults      []FaultOp     // SABLINE_FAULT_INJECT, parsed
	Timeout     time.Duration // 0 for none
	MaxMemoryMB int           // 0 for none
	Guarded     []string      // locations a broad grant never reaches: the receipts directory
	Stdin       io.Reader
	Stdout      io.Writer
	Stderr      io.Writer
}

// Supervise runs r in a worker process and returns its receipt, whose
// Outcome.ExitStatus is the status the command exits with. The supervisor
// holds the clock: a worker that outlives the timeout is killed. A worker
// that dies, by a signal, a crash or a memory limit, is a receipt too,
// never a lost run. The caller writes the receipt.
func Supervise(r Run) *Receipt {
	started := time.Now()
	abs := r.Program
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.Cwd, abs)
	}
	rec := NewReceipt(abs, r.Budget, r.Args)
	rec.setParameters(r)
	finish := func(o Outcome) *Receipt {
		rec.Outcome = o
		rec.Timings.Started = started.UTC()
		rec.Timings.WallMS = ms(time.Since(started))
		return rec
	}
	home, _ := os.UserHomeDir()
	req := Request{
		Program: abs, Args: r.Args, Budget: r.Budget, Cwd: r.Cwd, Home: home, Guarded: r.Guarded,
		Confine: r.Confine, Require: r.Require, Faults: r.Faults, MaxMemoryMB: r.MaxMemoryMB,
	}
	tmp, err := os.MkdirTemp("", "sabline-run-")
	if err != nil {
		return finish(outcomeOf(Errorf(E310, "private temporary directory: %w", err)))
	}
	defer os.RemoveAll(tmp)
	req.TempDir = tmp
	exe, err := os.Executable()
	if err != nil {
		return finish(outcomeOf(Errorf(E310, "find the sabline executable to start the worker: %w", err)))
	}
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return finish(outcomeOf(Errorf(E310, "request pipe: %w", err)))
	}
	resR, resW, err := os.Pipe()
	if err != nil {
		return finish(outcomeOf(Errorf(E310, "result pipe: %w", err)))
	}
	cmd := &exec.Cmd{
		// A descendant that left the worker's session would keep Wait
		// waiting for the pipes it holds; the run is over without it.
		WaitDelay: 2 * time.Second,
		Path:      exe,
		Args:      []string{os.Args[0], WorkerArg},
		Env:       workerEnv(),
		Dir:       r.Cwd,
		Stdin:     r.Stdin,
		Stdout:    r.Stdout,
		Stderr:    r.Stderr,
	}
	passPipes(cmd, reqR, resW)
	// A supervisor told to stop takes its worker, and all the worker
	// started, down with it; the worker is in a session of its own
	// and would not get a terminal's signal.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigc)
	if err := cmd.Start(); err != nil {
		return finish(outcomeOf(Errorf(E310, "start the worker: %w", err)))
	}
	reqR.Close()
	resW.Close()

	go func() {
		_ = json.NewEncoder(reqW).Encode(req) // a worker that died early is seen by Wait
		reqW.Close()
	}()
	resultc := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(resR) // the worker's end closes when it exits
		resultc <- b
	}()
	waitc := make(chan error, 1)
	go func() { waitc <- cmd.Wait() }()

	var timeout <-chan time.Time
	if r.Timeout > 0 {
		timer := time.NewTimer(r.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	timedOut := false
	var stopped os.Signal
	select {
	case <-waitc:
	case <-timeout:
		timedOut = true
		killWorker(cmd)
		<-waitc
	case stopped = <-sigc:
		killWorker(cmd)
		<-waitc
	}
	res, final := readResults(<-resultc)
	rec.takeWorker(&res)
	switch {
	case timedOut:
		return finish(outcomeOf(Errorf(E307, "the run took longer than --timeout %s and was stopped", r.Timeout)))
	case stopped != nil:
		o := outcomeOf(Errorf(E309, "the supervisor received %v and stopped the worker", stopped))
		if n, ok := stopped.(syscall.Signal); ok {
			o.ExitStatus = ExitSignaled + int(n)
		}
		return finish(o)
	}
	if _, killed := killedBy(cmd.ProcessState); final && !killed {
		if got := cmd.ProcessState.ExitCode(); got != res.Outcome.ExitStatus {
			return finish(outcomeOf(Errorf(E310, "the worker's result says exit status %d, but it exited with %d: the result is not the worker's own",
				res.Outcome.ExitStatus, got)))
		}
		return finish(res.Outcome)
	}
	return finish(deathOutcome(cmd.ProcessState, r.MaxMemoryMB, tmp))
}

// readResults reads the records a worker sent. The first is the worker's
// own: sent once the run is confined, before the program's first statement,
// or as the final record of a run that ended before it. A program with raw
// system calls (under ffi:ctypes or ffi:os) can write on the pipe too, so a
// later record is taken only for what the end of a run says (the outcome,
// the effects, the timings), never for the confinement, the files or the
// fault attempts; and of those, the last final record counts, since the
// worker sends its own last and then closes the pipe.
func readResults(raw []byte) (res WorkerResult, final bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	for first := true; ; first = false {
		var r WorkerResult
		if dec.Decode(&r) != nil {
			return res, final
		}
		switch {
		case first:
			res, final = r, r.Outcome.Status != ""
		case r.Outcome.Status != "":
			res.Outcome, res.Effects, res.Timings, final = r.Outcome, r.Effects, r.Timings, true
		}
	}
}

// deathOutcome says how a worker that wrote no result ended: killed by a
// signal, out of memory, or crashed, as the crash report the Go runtime
// wrote into the run's temporary directory (see CrashFile) says.
func deathOutcome(ps *os.ProcessState, maxMemoryMB int, tmp string) Outcome {
	if sig, ok := killedBy(ps); ok {
		o := outcomeOf(Errorf(E309, "the worker was killed by signal %d (%s) before it finished", sig, signalName(sig)))
		o.ExitStatus = ExitSignaled + sig
		return o
	}
	raw, _ := os.ReadFile(filepath.Join(tmp, CrashFile)) // none when the worker died before it could make one
	crash := string(raw)
	first, _, _ := strings.Cut(strings.TrimSpace(crash), "\n")
	if maxMemoryMB > 0 && allocatorThrew(crash) {
		return outcomeOf(Errorf(E308, "the worker ran out of memory under --max-memory-mb %d: the address-space limit stopped an allocation", maxMemoryMB))
	}
	if first != "" {
		return outcomeOf(Errorf(E310, "the worker exited with status %d without a result: %s", ps.ExitCode(), first))
	}
	return outcomeOf(Errorf(E310, "the worker exited with status %d without a result", ps.ExitCode()))
}

// allocatorThrew reports whether a Go crash report is the runtime giving
// up inside its allocator: what an allocation refused by the address-space
// limit looks like. (The report's "fatal error: out of memory" line goes to
// standard error only; the crash file holds the stacks.)
func allocatorThrew(crash string) bool {
	before, _, ok := strings.Cut(crash, "runtime.throw(")
	if !ok {
		return false
	}
	_, stack, _ := strings.Cut(crash[len(before):], "\n")
	frames := strings.SplitN(stack, "\n\n", 2)[0] // the throwing goroutine's frames
	return strings.Contains(frames, "runtime.mallocgc") || strings.Contains(frames, "runtime.(*mheap)") ||
		strings.Contains(frames, "runtime.(*mcache)")
}

// workerEnv is the supervisor's environment less the fault-injection
// variable, which reaches the worker only through the request.
func workerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, FaultEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}

func newRunID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}

func platform() Platform {
	return Platform{OS: goruntime.GOOS, Arch: goruntime.GOARCH, Kernel: confine.KernelRelease(), Go: goruntime.Version()}
}
