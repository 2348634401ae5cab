package worker

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/job"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/receipt"
)

// servePool is a pool worker: confined once, with the pool's policy, it
// runs the jobs the supervisor sends, one at a time, each in an
// interpreter of its own with fresh module values, until the request pipe
// closes. It counts each job it begins on the page page, when the
// supervisor passed one (wire.Began).
func (w *worker) servePool(req *wire.Request, jobs *bufio.Reader, page *os.File) int {
	w.stop.done() // no job yet: a stop is dropped until one is read
	res := &wire.Record{Confinement: core.NotApplied()}
	w.prepare(req, res)
	var began *wire.Began // the count of jobs begun, for the supervisor (nil for none)
	if page != nil {
		var err error
		if began, err = wire.OpenBegan(page); err != nil {
			// A worker that cannot count the jobs it begins serves none:
			// the page would say 0, and a job it began and died in would
			// be taken for one never begun, and run again elsewhere.
			return w.finish(res, codes.Errorf(codes.E310,
				"pool worker: %v: it serves no job, as it could not say which it began", err))
		}
	}
	t0 := time.Now()
	res.Confinement = w.confine(req)
	res.Timings.ConfineMS = receipt.MS(time.Since(t0))
	if err := below(req, res.Confinement, "the pool's confinement is",
		"the worker serves no run"); err != nil {
		return w.finish(res, err)
	}
	w.send(res, false)
	w.stop.hear() // ready for jobs: a stop from now on is a job's, or dropped
	mem := w.watchMemory(req, res.MemoryLimitHeld)
	left := w.leftover(req)
	temp := &tempDir{name: req.TempDir}
	var yield yielder

	for {
		if _, err := jobs.Peek(1); err == io.EOF {
			return 0 // the pool closed the pipe between two jobs: it retires the worker
		}
		line, err := wire.ReadLine(jobs, wire.MaxJobBytes)
		if err == io.EOF {
			err = fmt.Errorf("a job cut short: %w", io.ErrUnexpectedEOF)
		}
		var j wire.Job
		if err == nil {
			j, err = wire.DecodeJob(line)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "sabline: pool worker: read job:", err)
			return codes.ExitCrashed
		}
		began.Add() // before anything of the job is done
		w.stop.took()
		mem.Begin()
		out := &bounded.Writer{Max: wire.MaxPoolOutputBytes}
		cfg := lang.Config{
			Budget: j.Budget, Cwd: j.Cwd, Guard: w.guard, Args: j.Args,
			Stdin: bytes.NewReader(j.Stdin), Stdout: out, Tool: w.tool,
			Layers: res.Confinement.Layers, Refusal: refusal, Relayed: req.Relayed,
			Dial: w.dial(), KeepCompiled: j.Keep,
		}
		ran, err := job.Run(cfg, job.Program{Path: j.Program, Source: j.Source, Root: j.Root},
			job.Hooks{Running: w.stop.running})
		w.stop.done()
		if w.broker != nil {
			w.broker.CloseAll() // the supervisor shuts them down too: nothing of one run's reaches the next
		}
		r := wire.JobResult{Files: ran.Files, Effects: ran.Effects}
		r.Timings.CompileMS, r.Timings.RunMS = receipt.MS(ran.Compile), receipt.MS(ran.Run)
		mem.End()
		left.giveBack() // before the result: the next job is sent once it is read
		r.Outcome = receipt.OutcomeOf(err)
		r.Stdout, r.Clipped = out.Bytes(), out.Cut()
		if r.Clipped {
			r.StdoutBytes = out.Written()
		}
		line, err = wire.AppendJobResult(nil, &r)
		if err := w.write(line, err, false); err != nil {
			fmt.Fprintln(os.Stderr, "sabline: pool worker: write result:", err)
			return codes.ExitCrashed // the result could not be made, or the supervisor is gone
		}
		temp.clear(w.crash)
		if yield.due(time.Now()) {
			goruntime.Gosched()
		}
	}
}

// yieldEvery is how often at most a pool worker yields its processor
// between jobs: under the Go runtime's 10 ms, past which it takes a
// goroutine that has not yielded for long-running.
const yieldEvery = 5 * time.Millisecond

// yielder says when a pool worker's loop yields its processor
// (runtime.Gosched) between two jobs. The loop blocks only in system
// calls, which yield nothing to the scheduler, so the runtime saw one
// goroutine running for ever: every 10 ms its sysmon thread sent the
// worker a preemption signal and took its processor back, and went back
// to polling every 20 µs, each poll a context switch. A yield at most
// every yieldEvery keeps that from happening, and costs at most one wake
// of an idle thread each; a yield after every job would cost one a job.
type yielder struct{ last time.Time }

// due reports whether the loop yields now, and if so counts it done.
func (y *yielder) due(now time.Time) bool {
	if now.Sub(y.last) < yieldEvery {
		return false
	}
	y.last = now
	return true
}

// clear empties the worker's temporary directory between two pooled
// runs, the crash file crash (still its standard error) by its descriptor
// and every other entry: what one run left there, the next never sees.
// The crash file is cut only when it holds something: an ftruncate(2) of
// an empty file still changes its times, a journalled write on most file
// systems, and costs several times the fstat(2) that tells. The directory
// is held open from the first emptying on and read again from its start
// (lseek(2)), which spares an open and a close each run: an open under
// Landlock is the dearest call of the emptying. Where it cannot be held
// or read so, it is opened by its name, as before.
func (t *tempDir) clear(crash *os.File) {
	if crash != nil {
		if fi, err := crash.Stat(); err != nil || fi.Size() != 0 {
			_ = crash.Truncate(0)
		}
	}
	names, err := t.list()
	if err != nil {
		return
	}
	for _, name := range names {
		if name != wire.CrashFile {
			_ = t.root.RemoveAll(name)
		}
	}
}

// tempDir is the worker's temporary directory: its name, and the
// directory held open once it was listed, twice: as a file to list it
// and as a root to remove what the listing found. Both are the
// directory opened once by name, the file opened through the root: what
// is removed is the entry listed, in the directory listed, whatever
// became of the name since (TestClearTempThroughTheHeldDirectory). One
// removed meanwhile fails the listing, which then opens the name again.
type tempDir struct {
	name string
	f    *os.File
	root *os.Root
}

// list lists the names in the directory: through the descriptor held,
// read again from its start, or by its name. Names alone: a directory
// opened through a root has each entry it lists looked up, one
// fstatat(2) each, when its entries are asked for.
func (t *tempDir) list() ([]string, error) {
	if t.f != nil {
		if _, err := t.f.Seek(0, io.SeekStart); err == nil {
			if names, err := t.f.Readdirnames(-1); err == nil {
				return names, nil
			}
		}
		t.close()
	}
	root, err := os.OpenRoot(t.name)
	if err != nil {
		return nil, err
	}
	f, err := root.Open(".")
	if err != nil {
		root.Close()
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	if err != nil {
		f.Close()
		root.Close()
		return nil, err
	}
	t.f, t.root = f, root
	return names, nil
}

// close lets the directory held go.
func (t *tempDir) close() {
	if t.f != nil {
		t.f.Close()
		t.root.Close()
		t.f, t.root = nil, nil
	}
}
