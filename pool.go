package sabline

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// PoolOptions are a pool's settings: the operator's, fixed for the life of
// the pool. Every run sent to it is held to them.
type PoolOptions struct {
	Budget  budget.Budget // the ceiling: a run may ask for this budget or a narrower one
	Workers int           // workers at most, each running one program at a time; 0 is 1
	// MaxIdle is how many idle workers the pool keeps however long they
	// wait; past it, a worker idle for IdleTimeout is retired, and a run
	// that finds no worker ready starts one. 0 is 1; a negative count
	// keeps none.
	MaxIdle int
	// IdleTimeout is how long a worker past MaxIdle waits for a run
	// before it is retired; 0 is a minute, below zero E301.
	IdleTimeout time.Duration
	// OnDemand starts no worker with the pool: the first run starts the
	// first. A pool its workers hold below Require then refuses that run,
	// and each after it (E326, each with its receipt); NewPool refuses at
	// once only when this machine cannot reach Require for the pool's
	// policy.
	OnDemand    bool
	Timeout     time.Duration // per run; 0 for none (below zero is E301, as for Run)
	MaxMemoryMB int           // per worker; 0 for none (below zero is E301)
	Confine     Confine       // "" is ConfineDefault
	// Require is the least level of the pool's workers: a pool held below
	// it starts no worker (E326). "" is the level this machine holds the
	// pool's policy at, none no least level (Options.Require).
	Require core.Level
	// ImportRoot is the directory programs and their loads are read from.
	// With it, a program named by path must lie beneath it and the
	// operating system holds the workers' reads to it: the level can be
	// full. Without it, reads are not held and the level is partial at
	// best, saying so. A root named through a link is where the link led
	// when the pool started, and a program named beneath the link is
	// read from there.
	ImportRoot string
	// Receipts is the receipts directory; "" is the command line's
	// default (receipt.DefaultDir), as for Run.
	Receipts string
	// Guarded are Sabline's own locations no grant reaches, beside the
	// receipts directory, which is guarded always: a server's token
	// file, say.
	Guarded []string
	// LendCredentials are credential locations the operator lends the
	// pool's runs: a grant that names one of them reaches it.
	LendCredentials []string
	// Stderr receives the workers' own messages, 64 KiB of each, and the
	// pool's, one write at a time; nil for os.Stderr.
	Stderr io.Writer
	// Durability is Options.Durability, for each of the pool's runs.
	Durability receipt.Durability
}

// RunOptions are what one program sent to a pool may carry.
type RunOptions struct {
	Args []string
	// Stdin is the run's standard input, as Options.Stdin is Run's: read
	// whole before a worker takes the run, at most 4 MiB (more is E301,
	// and nothing runs), or until the run's context is done (E307, and
	// nothing runs; a reader that blocks is left to a goroutine until its
	// Read returns). nil: no input.
	Stdin io.Reader
	// Budget, when set, narrows the pool's for this run; one wider than
	// the pool's is refused (E328) and runs nothing.
	Budget *budget.Budget
	// Tenant names who asked for the run, for its receipt: a server's
	// tenant (receipt.Receipt.Tenant).
	Tenant string
}

// Pool is a set of confined workers, each running many programs in turn
// (see run.Pool): a worker whose run could have changed it (any ffi grant)
// or that timed out, crashed, ran out of memory or was killed is replaced,
// and every run leaves a receipt.
type Pool struct {
	p    *run.Pool
	opts PoolOptions
}

// NewPool starts a pool and waits until every worker has applied the
// pool's policy (none is started with OnDemand). A budget that grants a
// host module this binary has not registered is refused (E301), as
// CheckModules says.
func NewPool(opts PoolOptions) (*Pool, error) {
	if opts.Workers == 0 {
		opts.Workers = 1
	}
	if opts.Confine == "" {
		opts.Confine = ConfineDefault
	}
	if opts.Receipts == "" {
		dir, err := receipt.DefaultDir()
		if err != nil {
			return nil, err
		}
		opts.Receipts = dir
	}
	if err := CheckModules("PoolOptions.Budget", opts.Budget); err != nil {
		return nil, err // as Run's: the workers would hold nothing for a typo
	}
	if err := run.CheckLend("PoolOptions.LendCredentials", opts.LendCredentials); err != nil {
		return nil, optionsRefused(err, poolOptionsDo) // as Run's: each receipt keeps them
	}
	p, err := run.StartPool(run.PoolConfig{
		Budget: opts.Budget, Workers: opts.Workers, Confine: opts.Confine, Require: opts.Require,
		Timeout: opts.Timeout, MaxMemoryMB: opts.MaxMemoryMB, ImportRoot: opts.ImportRoot,
		MaxIdle: opts.MaxIdle, IdleTimeout: opts.IdleTimeout, OnDemand: opts.OnDemand,
		Guarded: guardedPaths(opts.Receipts, opts.Guarded), Lend: opts.LendCredentials,
		Receipts: opts.Receipts, Stderr: opts.Stderr, Durability: opts.Durability,
	})
	if codes.CodeOf(err) == codes.E301 {
		// Its options refused: said to a library's caller, whom the
		// catalogue's advice (the command line's --help) names nothing
		// it can change. sabline serve checks its flags before.
		return nil, optionsRefused(err, poolOptionsDo)
	}
	if err != nil {
		return nil, err
	}
	return &Pool{p: p, opts: opts}, nil
}

// Options are the pool's settings, as it runs with them: its defaults
// filled in (Workers at least 1, Confine, the receipts directory).
func (p *Pool) Options() PoolOptions { return p.opts }

// Run runs program in the next free worker. The error is nil when the
// program ran, however it ended (Result.Err says), and its receipt was
// kept; it is the refusal when nothing ran, and the result's receipt says
// so too; it is E327, as Run's, when the program ran and its receipt
// could not be finished (the journal keeps the skeleton, unfinished).
func (p *Pool) Run(ctx context.Context, program Program, opts RunOptions) (*Result, error) {
	r, err := p.p.Run(ctx, run.PoolRun{
		Program: program.Path,
		Source:  program.Source,
		Args:    opts.Args,
		Stdin:   opts.Stdin,
		Budget:  opts.Budget,
		Tenant:  opts.Tenant,
	})
	if _, serr := r.Receipt.Stored(); err == nil && serr != nil {
		err = serr // E327: it ran, and its receipt was not finished
	}
	res := &Result{Receipt: r.Receipt, Stdout: r.Stdout}
	if r.Clipped {
		var said bytes.Buffer
		sayCut(&said, r.Receipt, true)
		res.Stderr = said.Bytes()
	}
	if err == nil && r.Receipt.Outcome.Status != receipt.StatusOK {
		o := r.Receipt.Outcome
		var said bytes.Buffer
		sayOutcome(&said, o.Code, o.Message)
		res.Stderr = append(res.Stderr, said.Bytes()...)
	}
	return res, err
}

// Confinement is what the pool's workers hold: the zero Result until one
// has started.
func (p *Pool) Confinement() core.Result { return p.p.Confinement() }

// Refusing is the refusal (E326) a run sent to the pool now would get
// where it needs a new worker, nil when one would hold Require: the
// most recent worker start's refusal, or, after a start at the level,
// the level a worker started now would hold, a granted directory gone
// since the pool started held beneath the one above it (run.Pool.Refusing).
// A server's readiness reads it.
func (p *Pool) Refusing() error { return p.p.Refusing() }

// Admits returns the refusal (E328) a run of the pool asking for b meets
// before anything runs: b wider than the pool's budget, or narrowing it
// onto a location no grant reaches or a credential the pool's budget does
// not name; nil when such a run is admitted. A door's audit says it.
func (p *Pool) Admits(b budget.Budget) error { return p.p.Admits(b) }

// Workers lists the process ids of the pool's live workers.
func (p *Pool) Workers() []int { return p.p.Workers() }

// Close stops taking runs, lets the running ones end with their receipts,
// and stops the workers. The receipts directory's store stays open: it is
// the process's, shared by every pool and run on that directory, until the
// process ends (receipt.OpenStore).
func (p *Pool) Close() error { return p.p.Close() }

// PoolRegistry keeps pools keyed by their options, each made on first use,
// with at most its bound alive: past it, the least recently used pool that
// no run holds is closed. (The command's HTTP and MCP doors run through no
// registry: one Pool, the operator's, behind door.NewPoolRunner.)
type PoolRegistry struct {
	max    int
	mu     sync.Mutex
	pools  map[string]*entry
	clock  int64
	closed bool
}

// registryClosed is the error of Acquire after Close: E310, as a run
// sent to a closed pool meets.
func registryClosed() error {
	return &codes.Error{Code: codes.E310,
		Msg: "the pool registry is closed: the run was not started",
		Do:  "Send runs to a registry before its Close, or make another (NewPoolRegistry). Nothing ran."}
}

type entry struct {
	once   sync.Once
	pool   *Pool // written in once; read by others only once ready is set
	err    error
	ready  bool  // under the registry's lock: pool is made
	used   int64 // the registry's clock at its last use
	refs   int   // runs holding it
	key    string
	doomed bool // evicted: closed when its last run ends
}

// NewPoolRegistry returns a registry that keeps at most bound pools alive
// (at least 1).
func NewPoolRegistry(bound int) *PoolRegistry {
	return &PoolRegistry{max: max(1, bound), pools: map[string]*entry{}}
}

// Key is the registry's name for a pool's options: two options with the
// same key share a pool. Every option is in it but Stderr, which the
// pool made first keeps; a list of locations is quoted, each location
// whole, since a path may hold any byte but NUL.
func (o PoolOptions) Key() string {
	conf := o.Confine
	if conf == "" {
		conf = ConfineDefault
	}
	if o.Receipts == "" {
		o.Receipts, _ = receipt.DefaultDir() // as NewPool reads it
	}
	if o.Durability == "" {
		o.Durability = receipt.Flush // as StartPool reads it
	}
	return strings.Join([]string{o.Budget.String(), fmt.Sprint(max(o.Workers, 1)),
		o.Timeout.String(), fmt.Sprint(o.MaxMemoryMB),
		string(conf), string(o.Require), o.ImportRoot, o.Receipts, fmt.Sprintf("%q", o.Guarded),
		fmt.Sprintf("%q", o.LendCredentials), fmt.Sprint(o.MaxIdle), o.IdleTimeout.String(),
		fmt.Sprint(o.OnDemand), string(o.Durability)}, "\x00")
}

// Run runs program in the pool opts names, starting that pool on first
// use (see Pool.Run). A run the registry has no pool for (the registry
// closed, E310; the pool refused to start, as NewPool says) runs nothing,
// and its result's receipt, kept in the pool's receipts directory, says
// so, as a pool's refusals do.
func (r *PoolRegistry) Run(ctx context.Context, opts PoolOptions, program Program,
	ro RunOptions) (*Result, error) {
	p, release, err := r.Acquire(opts)
	if err != nil {
		return unpooled(opts, program, ro, err), err
	}
	defer release()
	return p.Run(ctx, program, ro)
}

// unpooled is the result of a run the registry has no pool for, err
// saying why: its receipt, stored in the receipts directory of opts, as
// Pool.Run keeps a refused run's.
func unpooled(opts PoolOptions, program Program, ro RunOptions, err error) *Result {
	b := opts.Budget
	if ro.Budget != nil {
		b = *ro.Budget
	}
	path := program.Path
	if path == "" {
		path = "program.vel" // as a pool names a nameless program
	}
	if !filepath.IsAbs(path) {
		base := opts.ImportRoot
		if base == "" {
			base, _ = os.Getwd()
		}
		path = filepath.Join(base, path)
	}
	o := Options{Budget: b, Args: ro.Args, Confine: cmp.Or(opts.Confine, ConfineDefault),
		Require: opts.Require, Timeout: opts.Timeout, Receipts: opts.Receipts,
		LendCredentials: opts.LendCredentials, Durability: cmp.Or(opts.Durability, receipt.Flush),
		Stderr: opts.Stderr}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Receipts == "" {
		o.Receipts, _ = receipt.DefaultDir() // as NewPool reads it
	}
	// The program is not read: a pool reads it once it admits the run.
	rec := setParameters(receipt.NewForSource(filepath.Clean(path), program.Source, b, ro.Args), o)
	rec.Tenant = ro.Tenant
	rec.Outcome = receipt.OutcomeOf(err)
	if o.Receipts != "" {
		store(rec, o)
	}
	return &Result{Receipt: rec}
}

// Acquire returns the pool opts names, starting it on first use, and the
// function that gives it back: a pool is closed by eviction only once every
// run that acquired it has given it back.
func (r *PoolRegistry) Acquire(opts PoolOptions) (*Pool, func(), error) {
	key := opts.Key()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, nil, registryClosed()
	}
	e := r.pools[key]
	if e == nil {
		e = &entry{key: key}
		r.pools[key] = e
	}
	r.clock++
	e.used, e.refs = r.clock, e.refs+1
	r.mu.Unlock()
	e.once.Do(func() { e.pool, e.err = NewPool(opts) })
	err := e.err
	if err == nil && e.pool == nil {
		err = registryClosed() // Close came first
	}
	r.mu.Lock()
	if err != nil {
		e.refs--
		if r.pools[key] == e {
			delete(r.pools, key) // the next Acquire tries again
		}
		r.mu.Unlock()
		return nil, nil, err
	}
	e.ready = true
	r.mu.Unlock()
	r.evict()
	var once sync.Once
	return e.pool, func() { once.Do(func() { r.release(e) }) }, nil
}

func (r *PoolRegistry) release(e *entry) {
	r.mu.Lock()
	e.refs--
	closeIt := e.doomed && e.refs == 0
	r.mu.Unlock()
	if closeIt {
		e.pool.Close()
	}
	r.evict()
}

// evict closes the least recently used pools past the bound; one still
// held is closed when its last run gives it back.
func (r *PoolRegistry) evict() {
	r.mu.Lock()
	var live []*entry
	if len(r.pools) <= r.max {
		r.mu.Unlock()
		return
	}
	for _, e := range r.pools {
		if e.ready {
			live = append(live, e)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].used < live[j].used })
	var closing []*Pool
	for i := 0; len(live)-i > r.max; i++ {
		e := live[i]
		delete(r.pools, e.key)
		e.doomed = true
		if e.refs == 0 {
			closing = append(closing, e.pool)
		}
	}
	r.mu.Unlock()
	for _, p := range closing {
		p.Close()
	}
}

// Len is how many pools the registry holds.
func (r *PoolRegistry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pools)
}

// Close closes every pool the registry holds, letting their runs end, and
// returns what their Close returned (a receipts journal that could not be
// synced, say).
func (r *PoolRegistry) Close() error {
	r.mu.Lock()
	r.closed = true
	pools := r.pools
	r.pools = map[string]*entry{}
	r.mu.Unlock()
	var errs []error
	for _, e := range pools {
		e.once.Do(func() {}) // a pool being made is waited for
		if e.pool != nil {
			errs = append(errs, e.pool.Close())
		}
	}
	return errors.Join(errs...)
}
