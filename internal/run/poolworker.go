package run

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/job"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// poolJob is one program a pool worker runs: a line on the request pipe after
// the pool's own request. The supervisor has read the program already
// (beneath the import root, when the pool has one) and checked that the
// budget is beneath the pool's.
type poolJob struct {
	Program string        `json:"program"` // absolute: the name positions and digests carry
	Source  []byte        `json:"source"`
	Root    string        `json:"root"` // loads are read beneath it
	Args    []string      `json:"args"`
	Stdin   []byte        `json:"stdin,omitempty"`
	Budget  budget.Budget `json:"budget"`
	Cwd     string        `json:"cwd"`
}

// jobResult is what a pool worker sends back for one job: one line on the
// result pipe.
type jobResult struct {
	Outcome receipt.Outcome       `json:"outcome"`
	Files   []program.FileDigest  `json:"files,omitempty"`
	Effects []budget.Usage        `json:"effects,omitempty"`
	Stdout  []byte                `json:"stdout,omitempty"`
	Clipped bool                  `json:"clipped,omitempty"` // the program printed more than MaxPoolOutputBytes
	Timings receipt.WorkerTimings `json:"timings"`
}

// MaxPoolOutputBytes is the most of a pooled run's standard output the
// worker keeps and sends back; the rest is dropped and the result says so.
const MaxPoolOutputBytes = 1 << 20

// maxJobResultBytes bounds one result line of a pool worker: the output,
// and room for the rest.
const maxJobResultBytes = MaxPoolOutputBytes*4/3 + MaxResultBytes

// check reports whether r is a result a pool worker could have sent (see
// workerResult.check).
func (r *jobResult) check() error {
	w := workerResult{Outcome: r.Outcome, Files: r.Files, Effects: r.Effects}
	if r.Outcome.Status == "" {
		return fmt.Errorf("a result without a status")
	}
	if len(r.Stdout) > MaxPoolOutputBytes {
		return fmt.Errorf("%d bytes of output, more than %d", len(r.Stdout), MaxPoolOutputBytes)
	}
	return w.check()
}

// servePool is a pool worker: confined once, with the pool's policy, it
// runs the jobs the supervisor sends, one at a time, each in an
// interpreter of its own with fresh module values, until the request pipe
// closes.
func (w *worker) servePool(req *request, jobs *json.Decoder) int {
	res := &workerResult{Confinement: confine.NotConfined(receipt.ReasonNotApplied)}
	w.prepare(req, res)
	t0 := time.Now()
	res.Confinement = w.confine(req)
	res.Timings.ConfineMS = ms(time.Since(t0))
	if req.Require != "" && res.Confinement.Level.Rank() < req.Require.Rank() {
		return w.finish(res, codes.Errorf(codes.E326, "required level %s: the pool's confinement is %s (%s)",
			req.Require, res.Confinement.Level, res.Confinement.Reason))
	}
	w.send(res, false)
	mem := w.watchMemory(req, res.MemoryLimitHeld)

	var current atomic.Pointer[lang.Interp]
	if len(stopSignals) > 0 {
		stopc := make(chan os.Signal, 1)
		signal.Notify(stopc, stopSignals...)
		go func() {
			for range stopc {
				if in := current.Load(); in != nil {
					in.Stop("the run took longer than its timeout and was stopped")
				}
			}
		}()
	}
	for {
		var j poolJob
		if err := jobs.Decode(&j); err != nil {
			if err == io.EOF {
				return 0
			}
			fmt.Fprintln(os.Stderr, "sabline: pool worker: read job:", err)
			return codes.ExitCrashed
		}
		mem.begin()
		out := &bounded.Writer{Max: MaxPoolOutputBytes}
		cfg := lang.Config{
			Budget: j.Budget, Cwd: j.Cwd, Guard: req.Guard, Args: j.Args,
			Stdin: bytes.NewReader(j.Stdin), Stdout: out, Tool: w.tool,
			Layers: res.Confinement.Layers, Refusal: refusal, Relayed: req.Relayed,
		}
		ran, err := job.Run(cfg, job.Program{Path: j.Program, Source: j.Source, Root: j.Root}, job.Hooks{
			Running: func(in *lang.Interp) func() {
				current.Store(in)
				return func() { current.Store(nil) }
			},
		})
		r := jobResult{Files: ran.Files, Effects: ran.Effects}
		r.Timings.CompileMS, r.Timings.RunMS = ms(ran.Compile), ms(ran.Run)
		mem.end()
		r.Outcome = receipt.OutcomeOf(err)
		r.Stdout, r.Clipped = out.Bytes(), out.Cut()
		line, err := json.Marshal(&r)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sabline: pool worker: encode result:", err)
			return codes.ExitCrashed
		}
		w.mu.Lock()
		_, err = w.out.Write(append(line, '\n'))
		w.mu.Unlock()
		if err != nil {
			return codes.ExitCrashed // the supervisor is gone
		}
		clearTemp(req.TempDir, w.crash)
	}
}

// clearTemp empties the worker's temporary directory between two pooled
// runs, the crash file crash (still its standard error) by its descriptor
// and every other entry: what one run left there, the next never sees.
func clearTemp(dir string, crash *os.File) {
	if crash != nil {
		_ = crash.Truncate(0)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() != crashFile {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}
