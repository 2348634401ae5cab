// Package job is one program's run in an interpreter: it compiles the
// program, gives its caller a turn before the first statement (to confine
// the process, to reserve the receipt, or to refuse), and runs it. The
// command line's worker, a pool's worker and the library's in-process run
// all run a program here, so what happens between the compile and the
// first statement is written once:
//
//	ran, err := job.Run(cfg, job.Program{Path: path}, job.Hooks{
//		Compiled: func(in *lang.Interp, prog *lang.Compiled) error {
//			return reserve(prog) // an error ends the job: nothing runs
//		},
//	})
package job

import (
	"path/filepath"
	"sync"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/lang"
	"github.com/sabline/sabline/program"
)

// Program names the program a job runs.
type Program struct {
	Path   string // the program's path: absolute, or as the operator gave it
	Source []byte // its text, when already read; nil to read Path
	Root   string // where its loads are read beneath, with Source ("" for Path's directory)
}

// Hooks are the caller's turns in a job; each may be nil.
type Hooks struct {
	// Compiled is called once the program compiled, before its first
	// statement: an error it returns ends the job, and nothing runs.
	Compiled func(in *lang.Interp, prog *lang.Compiled) error
	// Running is called as the first statement starts, with the
	// interpreter to stop (its timeout, its context); what it returns,
	// when not nil, is called once the program has ended.
	Running func(in *lang.Interp) (ended func())
}

// Ran is what a job did.
type Ran struct {
	Files   []program.FileDigest // the files compiled, the program first; nil when it did not compile
	Started bool                 // its first statement was reached
	Effects []budget.Usage       // the grants it used, once started
	Compile time.Duration
	Run     time.Duration
}

// predeclaredNames is what every job compiles against, made once: a
// compile only reads it.
var predeclaredNames = sync.OnceValue(lang.PredeclaredNames)

// Run compiles p in an interpreter made of cfg, calls h.Compiled, then runs
// the program, h.Running beside it, and returns what it did and how the
// job ended: the compile's error, the hook's, or the program's.
func Run(cfg lang.Config, p Program, h Hooks) (Ran, error) {
	var r Ran
	in := lang.NewInterp(cfg)
	names := predeclaredNames()
	t0 := time.Now()
	var prog *lang.Compiled
	var err error
	if p.Source != nil {
		root := p.Root
		if root == "" {
			root = filepath.Dir(p.Path)
		}
		prog, err = in.CompileSource(p.Path, p.Source, root, names)
	} else {
		prog, err = in.Compile(p.Path, names)
	}
	r.Compile = time.Since(t0)
	if err != nil {
		return r, err
	}
	r.Files = prog.Order
	if h.Compiled != nil {
		if err := h.Compiled(in, prog); err != nil {
			return r, err
		}
	}
	pre := in.PredeclaredFor(prog)
	var ended func()
	if h.Running != nil {
		ended = h.Running(in)
	}
	r.Started = true
	t1 := time.Now()
	err = in.Exec(prog, pre)
	r.Run = time.Since(t1)
	if ended != nil {
		ended()
	}
	r.Effects = in.Usage()
	return r, err
}
