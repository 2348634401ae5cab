package run

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/bufpool"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// PoolConfig is how a pool's workers are started and what holds every run
// sent to it. It is the operator's: nothing a run asks for changes it.
type PoolConfig struct {
	Budget  budget.Budget // the ceiling: a run may ask for this or less
	Workers int           // runs at once: at least 1
	Confine core.Mode     // core.ModeDefault, ModeStrict or ModeOff
	// Require is the least level of the pool's workers: a pool held
	// below it starts no worker (E326). "" is the level this machine
	// holds the pool's policy at (confine.Expected), none no least level.
	Require     core.Level
	Timeout     time.Duration // per run; 0 for none
	MaxMemoryMB int           // per worker; 0 for none
	// MaxIdle is how many idle workers the pool keeps however long they
	// wait for a run; past it, a worker that has waited IdleTimeout is
	// retired, and a run that finds no worker in its slot starts one.
	// 0 is DefaultMaxIdle; a negative count keeps none.
	MaxIdle int
	// IdleTimeout is how long a worker past MaxIdle waits for a run
	// before it is retired; 0 is DefaultIdleTimeout, below zero E301.
	IdleTimeout time.Duration
	// OnDemand starts no worker with the pool: the first run starts the
	// first. A pool held below Require then refuses that run (E326), and
	// each run after it, each with its receipt; StartPool refuses at once
	// only when this machine cannot reach Require for the pool's policy
	// (confine.OnThisMachine).
	OnDemand bool
	// ImportRoot, when set, is the one directory programs and their loads
	// are read from: a program named by path must lie beneath it, and the
	// operating system holds the workers' reads to it (and the budget's
	// read grants). Without it the workers may read anywhere the budget's
	// checks let a load reach, so the OS does not hold reads and the level
	// is partial at best.
	ImportRoot string
	Cwd        string // absolute; the runs' working directory (ImportRoot when "")
	// Sabline's own locations no grant reaches, beside the receipts: a
	// server's token
	Guarded  []string
	Lend     []string // credential locations the operator lends: a grant that names one reaches it
	Receipts string   // the receipts directory; "" keeps receipts in the results only
	// Stderr receives the workers' own messages, 64 KiB of each, and the
	// pool's, one write at a time; nil for os.Stderr.
	Stderr io.Writer
	// Durability is how each receipt is kept before its result is
	// returned; "" is receipt.Flush.
	Durability receipt.Durability
}

// The pool's defaults for idle workers: one worker stays ready for the
// next run, and the others go after a minute without one. An idle worker
// costs memory, not CPU: it waits on its request pipe.
const (
	DefaultMaxIdle     = 1
	DefaultIdleTimeout = time.Minute
)

// PoolRun is one program sent to a pool.
type PoolRun struct {
	// Program names the program: a path (beneath the pool's ImportRoot
	// when it has one) that is read unless Source is given, when it is
	// the name Source carries.
	Program string
	Source  []byte
	Args    []string
	Stdin   io.Reader // read whole, up to wire.MaxPoolInputBytes, before a worker takes the run
	// Budget, when set, narrows the pool's for this run: a budget wider
	// than the pool's is refused (E328) and runs nothing.
	Budget *budget.Budget
	Tenant string // who asked, for the receipt (receipt.Receipt.Tenant)
}

// PoolResult is a pooled run that has its receipt, however it ended.
type PoolResult struct {
	Receipt *receipt.Receipt
	Stdout  []byte // at most MaxPoolOutputBytes
	Clipped bool   // the program printed more, and the rest was dropped
}

// Pool is a set of workers, each started and confined once with the pool's
// budget and options, running many programs in turn. A worker that times
// out, crashes, runs out of memory or is killed is replaced, and so is one
// whose run's budget could have changed the worker itself (any ffi grant:
// raw system calls, the host's os module, a module that widens the policy
// to nothing). Every run leaves a receipt.
type Pool struct {
	cfg      PoolConfig
	policy   core.Policy       // derived once
	digest   string            // its sha256, as every receipt records it
	guard    *guard.Set        // what no grant reaches, resolved when the pool started
	resolved map[string]string // the ceiling's granted paths as they resolved when the pool started
	named    string            // the import root as given, absolute: cfg.ImportRoot is where it led
	held     core.Result       // what the first worker reported
	least    least             // of the workers held to the pool's policy (leastOf)
	store    *receipt.Store    // the receipts' journal; nil when receipts are not kept
	slots    chan *slot        // the free ones
	stop     chan struct{}
	swept    chan struct{}  // closed once the start's sweep (sweepRuns) is done
	wg       sync.WaitGroup // retirements and trial starts under way
	admitted sync.WaitGroup // runs admitted and not yet answered: Close drains them
	mu       sync.Mutex
	pids     map[int]bool
	idle     int // workers waiting for a run
	closed   bool
	stopped  sync.Once

	// present are the granted paths of the workers' policy (the import
	// root among them) that existed when the pool started: one gone since
	// is held beneath the nearest directory above it by a worker started
	// now, which then holds less (Refusing).
	present []string
	latest  core.Result // what the most recent worker to start at the level reported
	// refusedStart is the E326 of the most recent worker start, nil once
	// a worker starts at the level; refusedGone are the granted paths
	// that were gone when it was refused.
	refusedStart error
	refusedGone  []string
	refusedAt    time.Time     // when refusedStart was
	retrying     bool          // a trial start is under way (Refusing)
	retryEvery   time.Duration // retryRefusedEvery, but in tests
	trial        func()        // tryStart, but in tests
	reserved     func()        // nil, but in tests: called once a run's receipt is reserved
	// wallClock, when set, is the clock a run's receipt reads its start
	// from (Timings.Started) in place of time.Now: a test's, stepped as
	// NTP or an operator's date steps the machine's.
	wallClock func() time.Time
}

// retryRefusedEvery is how long after a worker start refused at the
// level Refusing tries another start of its own, when no run has: a
// server held not ready is sent no run, and would otherwise stay so
// whatever changed (retryRefused).
const retryRefusedEvery = 10 * time.Second

// pooled is a run waiting for, or held by, a worker.
type pooled struct {
	ctx context.Context
	b   budget.Budget
	// started is when the pool took the run, on the monotonic clock: its
	// receipt's wall_ms runs from it. The receipt's Timings.Started is
	// the wall clock's, in UTC, which has no monotonic reading: a step of
	// the wall clock during the run (NTP, an operator's date) would be
	// counted in wall_ms, an hour's step back making it negative.
	started time.Time
	// job is the line its worker is sent (wire.AppendJob): the program,
	// its input, its arguments; kept while the run waits only when it
	// could be sent again (resendBytes).
	job []byte
	// line holds job's buffer, given back to jobLines once the run is out
	// of its worker (Pool.Run); nil where it is not to be.
	line *[]byte
	rec  *receipt.Receipt
	err  error // set when nothing ran (no worker could start)
	// resent is set once the job went to a worker that ended before it
	// began it (poolWorker.do): it goes to one more at most, and job is
	// dropped once that one has it.
	resent bool
}

// StartPool starts cfg.Workers workers (none with cfg.OnDemand) and waits
// until each has applied the pool's policy. It fails when a worker cannot
// start, or when the confinement is below cfg.Require (E326).
func StartPool(cfg PoolConfig) (*Pool, error) {
	if cfg.Workers < 1 {
		return nil, codes.Errorf(codes.E301, "a pool needs at least one worker, not %d", cfg.Workers)
	}
	if cfg.Timeout < 0 || cfg.MaxMemoryMB < 0 {
		// As a single run's (sabline.Run): a negative one would hold
		// nothing, and the receipt would name it.
		return nil, codes.Errorf(codes.E301, "a pool's timeout and memory limit are above zero, "+
			"or zero for none, not %s and %d MB", cfg.Timeout, cfg.MaxMemoryMB)
	}
	if err := checkMemory(cfg.MaxMemoryMB); err != nil {
		return nil, err
	}
	if cfg.IdleTimeout < 0 {
		return nil, codes.Errorf(codes.E301, "a pool's idle timeout is above zero, or zero for %s, "+
			"not %s", DefaultIdleTimeout, cfg.IdleTimeout)
	}
	if _, err := receipt.ParseDurability("Durability", string(cfg.Durability)); err != nil {
		return nil, err
	}
	if cfg.MaxIdle == 0 {
		cfg.MaxIdle = DefaultMaxIdle
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Confine == "" {
		cfg.Confine = core.ModeDefault
	}
	if err := CheckConfine(cfg.Confine, cfg.Require); err != nil {
		return nil, err
	}
	if err := guard.CheckOperatorCredentials(); err != nil {
		return nil, err
	}
	var given string // the import root as named, absolute: through a link, perhaps
	if cfg.ImportRoot != "" {
		root, err := filepath.Abs(cfg.ImportRoot)
		if given = root; err == nil {
			root, err = filepath.EvalSymlinks(root)
		}
		if err != nil {
			return nil, codes.Errorf(codes.E301, "import root %s: %w", cfg.ImportRoot, err)
		}
		cfg.ImportRoot = root
	}
	if cfg.Cwd == "" {
		cfg.Cwd = cfg.ImportRoot
	}
	if cfg.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, codes.Errorf(codes.E301, "the pool's working directory: %w", err)
		}
		cfg.Cwd = wd
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	// Each worker's messages are relayed by a goroutine of its own, and
	// the pool says its own beside them: one write at a time reaches
	// Stderr, which need take no lock of its own (a bytes.Buffer).
	cfg.Stderr = &lockedWriter{w: cfg.Stderr}
	if err := refuseInWorker("StartPool"); err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, named: given, slots: make(chan *slot, cfg.Workers),
		stop: make(chan struct{}), swept: make(chan struct{}), pids: map[int]bool{},
		retryEvery: retryRefusedEvery}
	p.trial = p.tryStart
	if cfg.Receipts != "" {
		s, err := receipt.OpenStore(cfg.Receipts)
		if err != nil {
			return nil, err
		}
		p.store = s
	}
	// Its workers' directories are made in the runs directory, which the
	// register of this machine must know before any starts (E331).
	if _, err := runsDir(); err != nil {
		return nil, err
	}
	// What runs whose supervisor was killed outright left there (a server
	// killed with its pool, restarted) is swept beside the pool's start,
	// as each command-line run sweeps it: a process that only ever holds
	// pools swept nothing, and its killed runs' directories stayed.
	// Close waits for it, as a command line does (resultGrace).
	go func() {
		defer close(p.swept)
		sweepRuns()
	}()
	sabline := append([]string(nil), cfg.Guarded...)
	if cfg.Receipts != "" {
		sabline = append(sabline, cfg.Receipts)
	}
	p.guard = Guard(sabline, cfg.Lend)
	if err := Admit(p.guard, cfg.Budget); err != nil {
		return nil, err
	}
	p.resolved = admitted(cfg.Budget)
	p.present = existing(p.osBudget())
	p.policy = core.OSPolicy(p.osBudget(), core.Options{Mode: cfg.Confine})
	p.digest = p.policy.SHA256()
	p.least = p.leastOf(p.policy)
	if cfg.OnDemand {
		if err := p.below(p.least, p.heldOf(confine.OnThisMachine(p.policy)),
			"this machine would hold it at"); err != nil {
			return nil, err
		}
	}
	// Every worker is started before the pool takes a run, so that a
	// pool that cannot hold what it was asked fails here; on demand, none
	// is.
	n := cfg.Workers
	if cfg.OnDemand {
		n = 0
	}
	first := make([]*poolWorker, n)
	for i := range first {
		w, err := p.startWorker()
		if err != nil {
			for _, w := range first[:i] {
				w.retire()
			}
			return nil, err
		}
		first[i] = w
	}
	for i := range cfg.Workers {
		s := &slot{}
		if i < len(first) {
			s.w = first[i]
		}
		s.release(p)
	}
	return p, nil
}

// osBudget is the budget the workers' OS policy is derived from: the
// pool's, with reads of the import root, or of everything without one
// (a worker reads each program's loads after it is confined).
func (p *Pool) osBudget() budget.Budget { return p.osBudgetOf(p.cfg.Budget) }

// osBudgetOf is the budget a worker held to b derives its OS policy from:
// b, with reads of the import root, or of everything without one.
func (p *Pool) osBudgetOf(b budget.Budget) budget.Budget {
	read := budget.Item{Kind: budget.FS, Access: budget.Read, Path: p.cfg.ImportRoot}
	return b.With(read)
}

// Confinement is what the pool's workers hold, as the first of them
// reported it after applying the pool's policy: the zero Result until a
// worker has started.
func (p *Pool) Confinement() core.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// least is the least level of the workers held to one policy.
type least struct {
	// level is as the pool judges them (below): the one asked for
	// (cfg.Require), or, with expected, the one this machine holds the
	// policy at (Required), the pool's own gaps added (heldOf); worker is
	// what each is sent, which judges its confinement alone. With
	// expected, layers are the layers that hold it there (holding), which
	// each must hold too.
	level, worker core.Level
	expected      bool
	layers        []string
}

// leastOf is the least level of the pool's workers held to pol: the
// pool's own, or a run's own worker held to its narrower budget
// (startRunWorker), which this machine may hold at another level (a
// granted directory not there yet, held beneath the one above it).
func (p *Pool) leastOf(pol core.Policy) least {
	need, expected := required(p.cfg.Require, p.cfg.Confine, pol)
	l := least{level: need.Level, worker: need.Level, expected: expected}
	if expected {
		// As a worker holds the policy: a pool makes no granted
		// directory, so one not there is held beneath the one above it.
		l.level, l.layers = p.heldOf(need).Level, holding(need)
	}
	return l
}

// below refuses (E326) a level under l; saying is how the message
// introduces the level. Against the level this machine holds the
// policy at (expected), held is judged as that level was, the limits
// the language alone holds aside, and must hold each of l's layers.
func (p *Pool) below(l least, held core.Result, saying string) error {
	if l.expected {
		if held.HoldsAsExpected(l.level, l.layers) {
			return nil
		}
		return codes.Errorf(codes.E326, "%s", held.BelowExpected("pool", l.level, l.layers,
			saying, "it runs nothing", "Require, or a server's --require-confinement,"))
	}
	if l.level == "" || held.Level.Rank() >= l.level.Rank() {
		return nil
	}
	return codes.Errorf(codes.E326, "required level %s: %s %s (%s)", l.level, saying,
		held.Level, held.Reason)
}

// unstartable is the error of a run no worker could be started for, with
// the start's own code (E326 for a worker held below Require), or E310.
func unstartable(err error) error {
	e := &codes.Error{Code: codes.E310, Msg: err.Error(), Err: err}
	var coded *codes.Error
	if errors.As(err, &coded) {
		e.Code, e.Msg = coded.Code, coded.Msg
	}
	e.Msg = "start a pool worker: " + e.Msg + ": nothing ran"
	return e
}

// Workers lists the process ids of the pool's live workers.
func (p *Pool) Workers() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int, 0, len(p.pids))
	for pid := range p.pids {
		out = append(out, pid)
	}
	return out
}

// errPoolClosed is the error of a run sent to a pool after Close.
var errPoolClosed = errors.New("the pool is closed")

// closedDo is what to do about a run sent to a pool after its Close: the
// caller's order, not a fault of Sabline's, as E310's words would say.
const closedDo = "Send runs to a pool before its Close, or start another pool " +
	"(sabline.NewPool). Nothing ran."

// closedRefusal is the refusal (E310) of a run sent to the pool after Close;
// when says where it was met.
func closedRefusal(when string) *codes.Error {
	e := codes.Errorf(codes.E310, "%v%s", errPoolClosed, when)
	e.Err, e.Do = errPoolClosed, closedDo
	return e
}

// Run runs one program in the next free worker and returns its result,
// with the run's receipt, however the run ended. A run refused before it
// could start (a budget wider than the pool's, E328; a program outside
// the import root or unreadable, E316) returns its receipt too, and an
// error with the code. Cancelling ctx ends the run like its timeout; a
// run whose ctx is done before a worker takes it is sent to none (E307,
// nothing ran), even where a worker is free.
func (p *Pool) Run(ctx context.Context, r PoolRun) (*PoolResult, error) {
	j, err := p.admit(ctx, r)
	if err != nil {
		return &PoolResult{Receipt: j.rec}, err
	}
	defer p.admitted.Done()
	cancelled := func() (*PoolResult, error) {
		err := cancelledBefore(ctx)
		return p.unstarted(j, err), err
	}
	var s *slot
	select {
	case s = <-p.slots:
		if ctx.Err() != nil {
			// A free slot and a context done alike: select takes either,
			// and a run cancelled before a worker took it is sent to none
			// (TestPoolRunCancelledBefore). The slot goes back as it was,
			// never taken: its worker still waits, counted idle.
			p.slots <- s
			return cancelled()
		}
	case <-ctx.Done():
		return cancelled()
	case <-p.stop:
		// Not while Close waits for admitted runs; were that ever
		// broken, a run is refused here rather than waiting forever.
		err := closedRefusal(" before a worker took the run")
		return p.unstarted(j, err), err
	}
	given := false
	defer func() {
		if !given {
			// A panic under runIn: the slot, which holds no worker
			// while a run does, is given back, and Close does not wait
			// for it forever.
			s.release(p)
		}
	}()
	res, gone := p.runIn(s, j)
	given = true
	j.giveLine()
	if gone == nil {
		s.release(p)
	} else {
		// Retired beside the answer, and the slot given back only then:
		// a slot never has a new worker beside the one it retires.
		// Close, which waits for every slot, waits for this too.
		go func() {
			gone.retire()
			s.release(p)
		}()
	}
	// The receipt is finished once the run is out of its slot, and the
	// caller is answered once the receipt is in the journal.
	p.finish(j)
	return res, j.err
}

// cancelledBefore is the E307 of a run whose context was done before a
// worker took it.
func cancelledBefore(ctx context.Context) error {
	return codes.Errorf(codes.E307, "the run was cancelled before a worker took it: %v; nothing ran",
		context.Cause(ctx))
}

// admit checks r against the pool and starts its receipt.
func (p *Pool) admit(ctx context.Context, r PoolRun) (*pooled, error) {
	b := p.cfg.Budget
	if r.Budget != nil {
		b = *r.Budget
	}
	name := r.Program
	if name == "" {
		name = "program.vel"
	}
	if !filepath.IsAbs(name) {
		base := p.cfg.ImportRoot
		if base == "" {
			base = p.cfg.Cwd
		}
		name = filepath.Join(base, name)
	}
	name = filepath.Clean(name)
	if rel, err := filepath.Rel(p.named, name); p.named != "" && err == nil &&
		filepath.IsLocal(rel) {
		name = filepath.Join(p.cfg.ImportRoot, rel) // named through the link the root was given as
	}
	j := &pooled{ctx: ctx, b: b}
	j.rec = receipt.NewForSource(name, nil, b, r.Args)
	j.rec.Tenant = r.Tenant
	j.started = time.Now()
	j.rec.Timings.Started = j.started.UTC()
	if p.wallClock != nil {
		j.rec.Timings.Started = p.wallClock().UTC()
	}
	p.setParameters(j.rec)
	refuse := func(err error) (*pooled, error) {
		j.rec.Outcome = receipt.OutcomeOf(err)
		p.keep(j.rec)
		return j, err
	}
	if err := p.open(); err != nil {
		return refuse(err)
	}
	if err := refuseInWorker("Pool.Run"); err != nil {
		return refuse(err)
	}
	if err := p.Admits(b); err != nil {
		return refuse(err)
	}
	if err := checkNames(name, p.cfg.Cwd, r.Args); err != nil {
		return refuse(err)
	}
	root := filepath.Dir(name) // where its loads are read beneath
	if p.cfg.ImportRoot != "" {
		root = p.cfg.ImportRoot
		if !budget.Within(name, p.cfg.ImportRoot) {
			return refuse(codes.Errorf(codes.E316,
				"program %s is not beneath the import root %s: nothing ran", name, p.cfg.ImportRoot))
		}
	}
	src := r.Source
	if src == nil {
		var err error
		if src, err = program.ReadBeneath(root, name); err != nil {
			return refuse(readRefused(name, err))
		}
	}
	if len(src) > program.MaxBytes {
		if r.Source != nil {
			return refuse(textTooLarge(name, len(src)))
		}
		return refuse(programTooLarge(name))
	}
	j.rec.Program.SHA256 = sha256Hex(src)
	var in []byte
	if r.Stdin != nil {
		var err error
		if in, err = readInput(ctx, r.Stdin); err != nil {
			return refuse(err)
		}
	}
	// Sized for the program and its input in base64, and the rest
	// (jobHeadroom; a job that needs more grows).
	j.line = jobLines.Get()
	line := slices.Grow(*j.line, base64.StdEncoding.EncodedLen(len(src))+
		base64.StdEncoding.EncodedLen(len(in))+jobHeadroom)
	j.job = wire.AppendJob(line, &wire.Job{Program: name, Source: src, Root: root, Args: r.Args,
		Stdin: in, Budget: b, Cwd: p.cfg.Cwd, Keep: r.Source == nil})
	*j.line = j.job
	if len(j.job) > wire.MaxJobBytes {
		e := codes.Errorf(codes.E301, jobTooLarge, len(j.job), wire.MaxJobBytes)
		e.Do = jobTooLargeDo
		return refuse(e)
	}
	// Taken: Close now waits for this run to be answered. It is taken
	// before its receipt is reserved: a run whose receipt is in the
	// journal, unfinished, is one Close waits for, never one it refuses.
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return refuse(closedRefusal(": the run was not started"))
	}
	p.admitted.Add(1)
	p.mu.Unlock()
	if err := p.reserve(j.rec); err != nil {
		p.admitted.Done()
		j.rec.Outcome = receipt.OutcomeOf(err)
		return j, err
	}
	if p.reserved != nil {
		p.reserved()
	}
	return j, nil
}

// jobHeadroom is what a job's line is made with room for beside its
// program and input in base64: its names, arguments, budget and flags
// (324 bytes in all for a hello by path under "io").
const jobHeadroom = 1 << 10

// jobLines are the buffers jobs' lines are made in: a line is written to
// its worker's pipe, which copies it, and a run holds it only until its
// worker is done with it. One grown past 64 KiB is let go.
var jobLines = bufpool.Pool{Max: 64 << 10}

// giveLine gives j's line buffer back to jobLines, once nothing reads
// the job again: its worker has it, or will never be sent it.
func (j *pooled) giveLine() {
	jobLines.Put(j.line)
	j.line, j.job = nil, nil
}

// Admits returns the refusal (E328) a run asking for b meets before
// anything runs: b wider than the pool's budget, as written or where its
// paths lead (budget.Budget.BeneathAs: a path beneath the budget's that
// is a link out of it), or narrowing it onto a guarded location
// (narrows); nil when such a run is admitted. A door's
// audit asks it too, so that what it says of a budget is what a run meets.
func (p *Pool) Admits(b budget.Budget) error {
	err := b.BeneathAs(p.cfg.Budget, resolve)
	if err == nil {
		err = p.narrows(b)
	}
	if err != nil {
		return codes.Errorf(codes.E328, "this run's budget %q: %v: nothing ran", b.String(), err)
	}
	return resolvedUTF8(b, resolve)
}

// narrows checks that b narrows the pool's ceiling onto no guarded
// location: it names none that no grant reaches, and no dot-entry or lent
// credential the ceiling does not name. A knock-out build admits it.
func (p *Pool) narrows(b budget.Budget) error {
	if err := admits(p.guard, b, resolve); err != nil {
		return err
	}
	return narrowsOnto(p.guard, b, p.cfg.Budget)
}

// open says whether the pool still takes runs.
func (p *Pool) open() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return closedRefusal(": the run was not started")
	}
	return nil
}

// jobTooLarge says what to do about a pooled run whose job, the line its
// worker is sent, is past the bound a worker reads (%d, %d: its length
// and the bound, in bytes).
const jobTooLarge = "this run's program, standard input and arguments come to %d bytes as a " +
	"worker is sent them, more than %d: send shorter arguments or less input; nothing ran"

// jobTooLargeDo is what to do about it: as for input past its bound
// (inputTooLargeDo), the caller is a library's or a door's, whom the
// command line's advice names nothing it can change.
const jobTooLargeDo = "Send shorter arguments, or less standard input, to the pooled run, and " +
	"have the program read the rest from a file it is granted. Nothing ran."

// inputTooLarge says what to do about a pooled run's input past its
// bound (%d: the bound in bytes).
const inputTooLarge = "this run's standard input is larger than %d bytes, the most a pooled " +
	"run is given: send less, or have the program read the rest from a granted file; nothing ran"

// inputTooLargeDo is what to do about it: a door's client meets it, for
// whom the command line's advice (E301's) names nothing it can change.
const inputTooLargeDo = "Send at most 4 MiB of standard input to a pooled run (a run of " +
	"sabline serve or sabline mcp is one), and have the program read the rest from a file " +
	"it is granted. Nothing ran."

// readInput reads a pooled run's standard input whole, refusing (E301)
// one past wire.MaxPoolInputBytes or that cannot be read. A reader in
// memory is read at once; any other is read by a goroutine of its own,
// so that a ctx done before it ends ends the run (E307, nothing ran)
// while the goroutine waits on the reader, whose Read alone can end it.
func readInput(ctx context.Context, r io.Reader) ([]byte, error) {
	var in []byte
	var err error
	if bounded.InMemory(r) {
		in, err = readAllInput(r)
	} else {
		type input struct {
			in  []byte
			err error
		}
		got := make(chan input, 1)
		go func() {
			in, err := readAllInput(r)
			got <- input{in, err}
		}()
		select {
		case g := <-got:
			in, err = g.in, g.err
		case <-ctx.Done():
			return nil, codes.Errorf(codes.E307, "the run was cancelled while its standard input "+
				"was read: %v; nothing ran", context.Cause(ctx))
		}
	}
	if err != nil {
		return nil, codes.Errorf(codes.E301, "this run's standard input: %w; nothing ran", err)
	}
	if len(in) > wire.MaxPoolInputBytes {
		e := codes.Errorf(codes.E301, inputTooLarge, wire.MaxPoolInputBytes)
		e.Do = inputTooLargeDo
		return nil, e
	}
	return in, nil
}

// readAllInput reads r up to one byte past wire.MaxPoolInputBytes.
func readAllInput(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, wire.MaxPoolInputBytes+1))
}

// readRefused is the E316 (or the E317 of programTooLarge) for a
// program program.ReadBeneath could not read.
func readRefused(name string, err error) error {
	if errors.Is(err, program.ErrTooLarge) {
		return programTooLarge(name)
	}
	return codes.Errorf(codes.E316, "program %v: nothing ran", err)
}

// setParameters records how the pool holds a run.
func (p *Pool) setParameters(rec *receipt.Receipt) {
	rec.RunParameters.Asked(p.cfg.Confine, p.cfg.Require, p.cfg.Timeout, p.digest)
	rec.RunParameters.CredentialsLent = p.cfg.Lend
	rec.RunParameters.Durability = p.cfg.Durability
}

// reserve reserves rec in the receipts' journal, when the pool keeps
// receipts: nothing runs without its skeleton there.
func (p *Pool) reserve(rec *receipt.Receipt) error {
	if p.store == nil {
		return nil
	}
	return p.store.Reserve(rec)
}

// keep stores a receipt that was never reserved (a refused run).
func (p *Pool) keep(rec *receipt.Receipt) {
	if p.store != nil {
		p.store.Finish(rec)
		if _, err := rec.Stored(); err != nil {
			fmt.Fprintln(p.cfg.Stderr, "sabline: pool:", err)
		}
	}
}

// unstarted ends a run no worker took.
func (p *Pool) unstarted(j *pooled, err error) *PoolResult {
	j.rec.Outcome = receipt.OutcomeOf(err)
	p.finish(j)
	return &PoolResult{Receipt: j.rec}
}

// finish finishes the reserved receipt of run j, its wall_ms measured
// from when the pool took it (pooled.started). One that cannot be
// appended (E327: the journal failed, or its file system is full) stays
// the skeleton that says the run was not finished; the pool says so on
// its Stderr, as it does of a refused run's receipt it cannot keep, and
// Stored says so to the caller.
func (p *Pool) finish(j *pooled) {
	rec := j.rec
	rec.Timings.WallMS = receipt.MS(time.Since(j.started))
	if p.store != nil {
		p.store.Finish(rec)
		if _, err := rec.Stored(); err != nil {
			fmt.Fprintln(p.cfg.Stderr, "sabline: pool:", err)
		}
	}
}

// slot is a place for one of the pool's workers: free, in p.slots, or
// held by the one run that took it. Its worker (nil for none) is started
// by a run that finds none, and retired when it may serve no other run,
// when it has waited IdleTimeout while the pool has more idle workers
// than MaxIdle, and when the pool closes. A run is served in its caller's
// goroutine (runIn): no goroutine of the pool stands between a caller
// and its worker. A slot whose worker is being retired is not free: the
// runs have at most Workers workers, retiring ones among them.
type slot struct {
	// mu holds the idle timer's retirement against a run that takes the
	// slot meanwhile; the run that holds the slot owns w.
	mu sync.Mutex
	// w is the slot's worker: while the slot is free, one waiting for a
	// run and counted among the idle workers (Pool.idle), or nil.
	w     *poolWorker
	gen   int         // counts the times the slot was taken: an idle timer of an earlier wait does nothing
	timer *time.Timer // the idle timer of the slot's worker, while it waits
}

// release frees s, a slot taken from p.slots or a new one: its worker,
// if any, waits for a run from now on, counted idle, under an idle timer.
// Nothing ticks meanwhile.
func (s *slot) release(p *Pool) {
	s.mu.Lock()
	if s.w != nil {
		p.idling(1)
		gen := s.gen
		s.timer = time.AfterFunc(p.cfg.IdleTimeout, func() { s.idled(p, gen) })
	}
	s.mu.Unlock()
	p.slots <- s // never blocks: one place for each slot
}

// take returns the worker of s, a slot taken from p.slots, no longer
// waiting (nil for none).
func (s *slot) take(p *Pool) *poolWorker {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	w := s.w
	if w != nil {
		p.idling(-1)
	}
	s.w = nil
	return w
}

// idled is the idle timer of the wait gen of s: its worker is retired
// when more are idle than the pool keeps (shed), unless a run has taken
// the slot since. A run that takes the slot meanwhile waits for the
// retirement (an idle worker ends as soon as its request pipe closes),
// so that a new worker never runs beside the one retiring.
func (s *slot) idled(p *Pool, gen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen || s.w == nil || !p.shed() {
		return
	}
	p.forget(s.w)
	s.w.retire()
	s.w = nil
}

// runIn runs j in the worker of s, a slot its caller took, starting one
// when the slot has none. It returns the run's result, its receipt not
// yet finished, and the worker when it may serve no other run: out of
// the pool already, for the caller to retire.
func (p *Pool) runIn(s *slot, j *pooled) (*PoolResult, *poolWorker) {
	own := p.ownWorker(j.b)
	w := s.take(p)
	if w != nil && widens(j.b) && (w.sent > 0 || own) {
		// A run that may make raw system calls reads its worker's memory
		// as its own (a write(2) of any address): what earlier runs left
		// there, other callers' programs, input and output among it, and
		// the files kept compiled. It gets a worker that served none;
		// one narrower than the pool's, a worker held to its own budget.
		p.forget(w)
		w.retire()
		w = nil
	}
	var res *PoolResult
	var keep bool
	for res == nil {
		if w != nil && w.exited() {
			// It died while idle (killed from outside, say): the run goes
			// to a replacement, not to its corpse.
			p.forget(w)
			w.retire()
			w = nil
		}
		if w == nil {
			var err error
			if own {
				w, err = p.startRunWorker(j.b)
			} else {
				w, err = p.startWorker()
			}
			if err != nil {
				j.err = unstartable(err)
				j.rec.Outcome = receipt.OutcomeOf(j.err)
				return &PoolResult{Receipt: j.rec}, nil
			}
			if j.ctx.Err() != nil {
				// Cancelled while its worker started: as one cancelled
				// before a worker took it, it is sent to none, and the
				// new worker waits in the slot for the next run
				// (TestPoolRunCancelledWhileItsWorkerStarts); one held
				// to this run's budget alone serves no other.
				j.err = cancelledBefore(j.ctx)
				j.rec.Outcome = receipt.OutcomeOf(j.err)
				if own {
					p.forget(w)
					return &PoolResult{Receipt: j.rec}, w
				}
				s.w = w
				return &PoolResult{Receipt: j.rec}, nil
			}
		}
		if res, keep = w.do(p, j); res == nil {
			// It ended before it read the job, after the look above:
			// the run goes to a replacement as well.
			p.forget(w)
			w.retire()
			w = nil
		}
	}
	if !keep {
		// Out of the pool before the run's caller hears of it: a
		// retired worker serves nothing more.
		p.forget(w)
		return res, w
	}
	s.w = w
	return res, nil
}

// idling counts a worker in (1) or out of (-1) the idle ones.
func (p *Pool) idling(n int) {
	p.mu.Lock()
	p.idle += n
	p.mu.Unlock()
}

// shed says whether one idle worker past its timeout goes: when more are
// idle than the pool keeps. The one that goes is counted out.
func (p *Pool) shed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle <= max(p.cfg.MaxIdle, 0) {
		return false
	}
	p.idle--
	return true
}

func (p *Pool) forget(w *poolWorker) {
	p.mu.Lock()
	delete(p.pids, w.pid)
	p.mu.Unlock()
}

// Close stops taking runs, lets every run already taken (running, or
// waiting for a worker) end with its receipt, then stops the workers.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.admitted.Wait()
	p.stopped.Do(func() {
		close(p.stop)
		for range p.cfg.Workers {
			if w := (<-p.slots).take(p); w != nil {
				p.forget(w)
				p.wg.Add(1)
				go func() { // side by side: each may take stopGrace
					defer p.wg.Done()
					w.retire()
				}()
			}
		}
	})
	p.wg.Wait()
	// A pool closed at once had its program exit in the middle of the
	// start's sweep: what it had not ended or removed stayed until a
	// later run or pool of the same user.
	select {
	case <-p.swept:
	case <-time.After(resultGrace):
	}
	if p.store != nil {
		return p.store.Sync()
	}
	return nil
}

// poolWorker is one of the pool's workers: its life cycle, what its
// first record said it holds, and the jobs it was sent and began.
type poolWorker struct {
	*workerProc
	held  core.Result
	began *wire.Began // the count of jobs it began, nil where there is no page
	sent  uint64      // the jobs written to it whole
	// budget is the budget its policy was derived from (the pool's, or
	// the one run's it was started for: startRunWorker), and digest that
	// policy's sha256.
	budget, digest string
}

// neverBegan says whether w, whose result pipe has ended, ended without
// beginning job, the last job written to it (nil when the run kept no
// copy): once w has exited, the count on the page it shares with the
// supervisor (wire.Began, Linux) says whether it reached that job. A
// job it never began did nothing, even if its bytes were read (a thread
// woken by a kill reads what came before it ends). Where there is no
// page, a job counts as begun, and its run ends killed.
func (w *poolWorker) neverBegan(job []byte) bool {
	if len(job) == 0 {
		return false
	}
	w.end()
	began, ok := w.began.Count()
	return ok && began < w.sent
}

// startWorker starts one of the pool's workers, held to the pool's
// budget, and waits for it to report the policy it applied.
func (p *Pool) startWorker() (*poolWorker, error) {
	return p.start(p.cfg.Budget, p.policy, p.digest, p.resolved, true)
}

// ownWorker says whether a run under b gets a worker started for it
// alone, held by the kernel to b (startRunWorker): a run that may make
// raw system calls (widens), whose budget is narrower than the pool's.
// The language holds no raw call, so on a worker held to the pool's
// budget such a run would reach whatever the pool's grants reach (a
// door's tenant granted ffi:ctypes and a directory of its own, another
// tenant's beside it: TestPoolRawCallsHeldToTheirRunsBudget). It never
// shares its worker anyway.
func (p *Pool) ownWorker(b budget.Budget) bool {
	return widens(b) && p.cfg.Confine != core.ModeOff && b.String() != p.cfg.Budget.String()
}

// startRunWorker starts a worker for one run under b, a narrowing of the
// pool's budget: its policy is derived from b, as a command-line run's
// is, and its granted paths are admitted as they resolve now, but those
// of the pool's own, which are as they resolved when the pool started.
// Nothing of the pool's level follows from it (Refusing).
func (p *Pool) startRunWorker(b budget.Budget) (*poolWorker, error) {
	pol := core.OSPolicy(p.osBudgetOf(b), core.Options{Mode: p.cfg.Confine})
	adm := admitted(b)
	for path := range adm {
		if then, ok := p.resolved[path]; ok {
			adm[path] = then
		}
	}
	return p.start(b, pol, pol.SHA256(), adm, false)
}

// start starts one worker held to b by pol (whose sha256 is digest), its
// granted paths admitted as adm says they resolved, and waits for it to
// report the policy it applied. A worker of the pool's own (pooled) has
// its start count towards the pool's level (Refusing); a run's own is
// held to the least level of pol (leastOf), not the pool's.
func (p *Pool) start(b budget.Budget, pol core.Policy, digest string, adm map[string]string,
	pooled bool) (*poolWorker, error) {
	if p.cfg.Confine == core.ModeOff {
		pol = core.Policy{}
	}
	// Without the page (off Linux, or memfd refused), every job a worker
	// was sent counts as begun once it dies.
	began, theirs, _ := wire.NewBegan()
	proc, err := startWorker(workerSpec{marker: "pool", env: b.Has(budget.Env),
		dir: p.cfg.Cwd, policy: pol, memoryMB: p.cfg.MaxMemoryMB, runID: "pool",
		stderr: newWorkerMessages(p.cfg.Stderr), began: theirs})
	if err != nil {
		began.Close()
		return nil, err
	}
	w := &poolWorker{workerProc: proc, began: began, budget: b.String(), digest: digest}
	if began != nil {
		w.closers = append(w.closers, began)
	}
	fail := func(err error) (*poolWorker, error) {
		w.retire()
		if pooled && codes.CodeOf(err) == codes.E326 {
			p.refuse(err)
		}
		return nil, err
	}
	// The ceiling is checked again, as it resolves now, against what no
	// grant reaches as the pool resolved it when it started (a server that
	// holds itself can list too little to resolve that set again), and
	// the worker withholds a grant that resolves otherwise than when the
	// pool began.
	if err := Admit(p.guard, p.cfg.Budget); err != nil {
		return fail(err)
	}
	if !pooled {
		// The run's own budget too: a narrower grant of its may have
		// been swapped for a link since the run was admitted.
		if err := Admit(p.guard, b); err != nil {
			return fail(err)
		}
	}
	l := p.least
	if !pooled {
		l = p.leastOf(pol)
	}
	req := wire.Request{
		Pool: true, Budget: b, Cwd: p.cfg.Cwd, Guard: p.guard.Wire(), Admitted: adm,
		Confine: p.cfg.Confine, Require: l.worker, Expected: l.expected, Layers: l.layers,
		MaxMemoryMB: p.cfg.MaxMemoryMB, TempDir: w.tmp, Procs: w.procs, Relayed: w.relayed,
	}
	if p.cfg.Confine != core.ModeOff {
		req.Policy, req.PolicySHA256 = &pol, digest
	}
	if err := w.sendRequest(&req); err != nil {
		// A worker that ended before it read its request closed its end
		// of the pipe: how it ended says why, as a command-line run's
		// supervisor says it (its wait sees the death, not the write).
		return fail(codes.Errorf(codes.E310, "the pool worker ended before it read its request "+
			"(%v): %s", err, deathMessage(w)))
	}
	res, s, bad := w.first(waitFor{ctx: context.Background()})
	switch {
	case s.stop != nil:
		return fail(s.stop)
	case s.eof:
		return fail(codes.Errorf(codes.E310,
			"the pool worker ended before it reported its confinement: %s", deathMessage(w)))
	case bad != nil:
		return fail(codes.Errorf(codes.E310,
			"the pool worker's first record is not one it could have sent: %w", bad))
	case res.Outcome.Status != "":
		// It refused to serve (below the required level) or failed.
		return fail(&codes.Error{Code: res.Outcome.Code, Msg: res.Outcome.Message})
	}
	w.held = p.heldOf(res.Confinement)
	if p.cfg.MaxMemoryMB > 0 {
		w.held = w.held.With(memoryGap(p.cfg.MaxMemoryMB, w.started.Memory(), w.status != nil,
			w.memHeld > 0))
	}
	saying := "the pool's confinement is"
	if !pooled {
		saying = "the worker held to this run's budget is at"
	}
	if err := p.below(l, w.held, saying); err != nil {
		return fail(err)
	}
	p.mu.Lock()
	p.pids[w.pid] = true
	if pooled && p.held.Level == "" {
		p.held = w.held
	}
	p.mu.Unlock()
	if pooled {
		p.atLevel(w.held)
	}
	return w, nil
}

// refuse records err, the E326 of a worker start, and the granted paths
// gone then (Refusing).
func (p *Pool) refuse(err error) {
	gone := p.gone()
	p.mu.Lock()
	p.refusedStart, p.refusedGone, p.refusedAt = err, gone, time.Now()
	p.mu.Unlock()
}

// atLevel records held, what a worker that started at the level
// reported: no start is refused now (Refusing).
func (p *Pool) atLevel(held core.Result) {
	p.mu.Lock()
	p.latest, p.refusedStart, p.refusedGone = held, nil, nil
	p.mu.Unlock()
}

// tryStart is retryRefused's trial: a worker started, and retired at once
// when it starts at the level, forgotten first, as it serves no run.
func (p *Pool) tryStart() {
	if w, err := p.startWorker(); err == nil {
		p.forget(w)
		w.retire()
	}
}

// Refusing is the E326 a run sent to the pool now would be refused with
// where it needs a new worker, nil when one would hold the required
// level: the refusal of the most recent worker start, while the granted
// paths gone are those that were gone then (a worker that starts at the
// level clears it); else what the most recent worker to start at the
// level reported, with each granted path that existed when the pool
// started and is gone now held beneath the nearest directory above it,
// as a worker started now holds it. A pool that asked for level none, or
// whose policy holds nothing, refuses nothing for its level.
func (p *Pool) Refusing() error {
	if p.least.level.Rank() <= core.None.Rank() {
		return nil
	}
	gone := p.gone()
	p.mu.Lock()
	refused, then, held := p.refusedStart, p.refusedGone, p.latest
	if refused != nil && slices.Equal(then, gone) {
		p.retryRefused()
	}
	p.mu.Unlock()
	if refused != nil && slices.Equal(then, gone) {
		return refused
	}
	if held.Level == "" { // no worker has started yet (OnDemand)
		return nil
	}
	for _, g := range gone {
		held = held.With(core.Gap{Layer: core.LayerLandlockFamily, Kind: core.GapUnheld,
			Text: g + " no longer exists: a worker started now holds it beneath the nearest " +
				"directory above it that does"})
	}
	return p.below(p.least, held, "a worker started now would hold")
}

// retryRefused starts a worker in the background, under p.mu, once the
// refused start is retryEvery old and none is under way: one started at
// the level clears the refusal (startWorker) and is retired at once, one
// refused again renews it. What held the start below the level may have
// gone (a device node beneath a grant removed, a kernel setting
// restored) where no granted directory came back to say so.
func (p *Pool) retryRefused() {
	if p.retrying || p.closed || time.Since(p.refusedAt) < p.retryEvery {
		return
	}
	p.retrying = true
	p.wg.Add(1) // Close waits for it
	go func() {
		defer p.wg.Done()
		p.trial()
		p.mu.Lock()
		p.retrying = false
		p.mu.Unlock()
	}()
}

// gone are the granted paths that existed when the pool started and do
// not now, sorted.
func (p *Pool) gone() []string {
	var out []string
	for _, path := range p.present {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			out = append(out, path)
		}
	}
	return out
}

// existing are the paths of b's file grants that exist now, sorted.
func existing(b budget.Budget) []string {
	var out []string
	for _, it := range b.Of(budget.FS) {
		if it.Path == "" || slices.Contains(out, it.Path) {
			continue
		}
		if _, err := os.Stat(it.Path); err == nil {
			out = append(out, it.Path)
		}
	}
	slices.Sort(out)
	return out
}

// heldOf is what a pool worker holds, from what it applied: the
// pool's workers read the import root beside the budget, or, without one,
// each program's loads wherever they are, which the operating system
// then does not hold.
func (p *Pool) heldOf(held core.Result) core.Result {
	if held.Level == core.None {
		return held
	}
	if p.cfg.ImportRoot != "" {
		return held.With(core.Gap{Layer: core.LayerPool, Kind: core.GapHeld,
			Text: "beside the budget, the workers may read the import root " + p.cfg.ImportRoot +
				", where programs and their loads are read"})
	}
	return held.With(core.Gap{Layer: core.LayerPool, Kind: core.GapUnheld,
		Text: "reads are not held by the operating system: the pool has no import root, " +
			"so its workers may read any file"})
}

// resendBytes bounds the jobs a run keeps a copy of while it waits for
// its result, to give to another worker should this one die without
// beginning it (neverBegan): a larger copy would double what a run holds
// while it waits, for a death that comes seldom.
const resendBytes = 64 << 10

// do runs one job in w. It returns the run's result and whether w may
// serve another run; or, once for a job, no result: w ended before it
// began the job, so nothing of the run began, and the caller gives the
// job to another worker. No process held its request pipe's other end
// any more (EPIPE, on Unix), or, once w has ended, its count of jobs
// begun never reached this one (neverBegan), a count taken only for a run
// that may make no raw system calls.
func (w *poolWorker) do(p *Pool, j *pooled) (*PoolResult, bool) {
	rec := j.rec
	held := w.held
	if j.b.String() != w.budget && held.Level != core.None {
		held = held.With(core.Gap{Layer: core.LayerPool, Kind: core.GapHeld,
			Text: "the operating system holds the pool's budget, this run's narrower one " +
				"is held by the language"})
	}
	rec.SetConfinement(held)
	if w.digest != "" {
		rec.RunParameters.OSPolicySHA256 = w.digest // the policy its worker applied
	}
	rec.RunParameters.MaxMemoryMB = w.memHeld
	keep := noKeep
	if p.cfg.Receipts != "" {
		keep = func(report string) string { return rec.KeepCrashReport(p.cfg.Receipts, report) }
	}
	if w.broker != nil { // a brokered worker's runs are held to their own policy's hosts
		w.begin(j.b, core.OSPolicy(j.b, core.Options{Mode: p.cfg.Confine}))
	}
	err := w.send(j.job)
	if err == nil {
		w.sent++
	}
	if errors.Is(err, syscall.EPIPE) && !j.resent {
		j.resent = true
		return nil, false
	}
	if len(j.job) > resendBytes || j.resent || widens(j.b) {
		// The worker has it: a run that waits on its result holds no
		// copy. One that may make raw system calls is never sent again:
		// its program can write the worker's count of jobs begun as well
		// as the worker can, and a count it wrote low, before it ended
		// its worker, would have it run twice, its receipt saying once
		// (TestPoolRawCallsRunOnce).
		j.job, j.line = nil, nil
	}
	if err != nil {
		rec.Outcome, _ = w.death(keep) // the job never reached it whole: nothing of it ran
		rec.Observed = w.observe()
		return &PoolResult{Receipt: rec}, false
	}
	read := w.readRecord(wire.MaxJobResultBytes)
	if widens(j.b) {
		// A run that may make raw system calls can write on the result
		// pipe itself, before the worker's own line. Its worker serves
		// nothing after it: the request pipe closes, the worker ends
		// once it has sent its result, and the last line that is a
		// result it could have sent is the run's, taken once the worker
		// has exited, as it exited (conclude): a line the program wrote
		// before it killed its worker, or ended it with a status of its
		// own, is not the run's end.
		w.reqW.Close()
		w.last = true
		read = w.readLast()
	}
	f := waitFor{ctx: j.ctx, timeout: p.cfg.Timeout}
	if p.cfg.Timeout > 0 {
		f.deadline = time.Now().Add(p.cfg.Timeout)
	}
	s := w.await(f, read)
	if s.eof && s.stop == nil && w.neverBegan(j.job) {
		j.resent = true
		return nil, false
	}
	var r wire.JobResult
	var final *receipt.Outcome
	var bad error
	if !s.eof {
		if r, bad = wire.ParseJobResult(s.raw); bad == nil {
			bad = ownEffects(j.b, r.Effects)
		}
		if bad == nil {
			final = &r.Outcome
		}
	}
	var said string
	stopped := s.stop != nil
	if w.endedFirst(s, final) {
		s.stop = nil // its program's own end came first: nothing was stopped
	}
	rec.Outcome, said = w.conclude(s, final, bad, keep)
	if stopped {
		w.end() // killed already: its end is awaited here
	}
	if s.stop != nil || final == nil || bad != nil {
		reported(rec, j.b, said)
		rec.Observed = w.observe()
		return &PoolResult{Receipt: rec}, false
	}
	// The whole result line is the worker's word, sent once the program
	// had run: the digests of the files it loaded too. The program's own
	// digest stays the one the supervisor took of the bytes it sent.
	files := ""
	if len(r.Files) > 0 {
		rec.Program.Files, files = r.Files, receipt.FieldFiles
	}
	if r.Effects != nil {
		rec.Effects = r.Effects
	}
	rec.Timings.Worker = r.Timings
	cut := ""
	rec.StdoutCut = receipt.CutStdout(r.StdoutBytes, int64(len(r.Stdout)))
	if rec.StdoutCut != nil {
		cut = receipt.FieldStdoutCut
	}
	reported(rec, j.b, said, receipt.FieldEffects, files, receipt.FieldWorkerTimings, cut)
	kept := !stopped && !widens(j.b) && r.Outcome.Code != codes.E308 &&
		r.Outcome.Code != codes.E310 && r.Outcome.Code != codes.E330
	rec.Observed = w.observe()
	return &PoolResult{Receipt: rec, Stdout: r.Stdout, Clipped: r.Clipped}, kept
}

// observe is what the supervisor saw of w for the run that is ending
// (workerProc.observe), and, where w ran this run alone (it was sent no
// job before, and has exited: a run that may make raw system calls gets
// such a worker, and ends it), the processor time and the largest
// resident set the kernel counted for it, as for the command line's
// worker. Its standard streams are not this run's alone: a pool's run's
// output comes back in its result, and the worker's error stream goes to
// the pool's Stderr over the worker's life.
func (w *poolWorker) observe() receipt.Observed {
	o := w.workerProc.observe()
	if w.sent == 1 && w.exited() {
		ps := w.cmd.ProcessState
		o.UserMS, o.SystemMS, o.MaxRSSKB = receipt.MS(ps.UserTime()), receipt.MS(ps.SystemTime()),
			maxRSSKB(ps)
	}
	return o
}

// ownEffects says why effects are not a count a worker running under b
// could have made, nil when they are: each names a grant of b, with its
// limit, at most once (a worker counts each grant of its run's budget:
// budget.Meter.Usage). A run that may make raw system calls can write a
// result of its own: one that counted two grants of a mebibyte each,
// none of its budget's, made a pooled run's receipt of 13 MB, past what
// the journal keeps, and the receipt was left unfinished (E327).
func ownEffects(b budget.Budget, effects []budget.Usage) error {
	if len(effects) > len(b.Items) {
		return fmt.Errorf("%d effects for a budget of %d grants", len(effects), len(b.Items))
	}
	names := make([]string, len(b.Items))
	for k, it := range b.Items {
		names[k] = it.String()
	}
	counted := make([]bool, len(b.Items))
	for i, u := range effects {
		at := -1
		for k, it := range b.Items {
			if !counted[k] && names[k] == u.Grant && it.Limit == u.Limit {
				at = k
				break
			}
		}
		if at < 0 || u.Uses < 0 {
			return fmt.Errorf("effect %d is not a count of a grant of the run's budget", i)
		}
		counted[at] = true
	}
	return nil
}

// deathMessage says how w, which ended before it served a run, ended.
func deathMessage(w *poolWorker) string {
	o, _ := w.death(noKeep)
	return o.Message
}

// readLast reads the result lines of a run that may have written on the
// result pipe itself, to the end of the pipe, and returns the last that
// is a result the worker could have sent, once the worker has exited
// and been waited for. A line past wire.MaxJobResultLines breaks the
// bound: the worker sends one. Each line is read into the buffer of the
// one before that was not kept (wire.AppendLine): 63 lines of 2.4 MB
// that were no result, each read anew, took the door 1.9 s of processor
// time, four times what the run's worker took to write them.
func (w *poolWorker) readLast() func() ([]byte, error) {
	return func() ([]byte, error) {
		var last, l []byte
		for n := 0; ; n++ {
			var err error
			l, err = wire.AppendLine(l[:0], w.res, wire.MaxJobResultBytes)
			if errors.Is(err, wire.ErrRecordTooLong) {
				w.breached(resultBound(wire.MaxJobResultBytes))
			}
			if err != nil {
				break
			}
			if n == wire.MaxJobResultLines {
				w.breached(codes.Errorf(codes.E310, "the worker wrote more than %d lines on its "+
					"result pipe: the run was stopped", wire.MaxJobResultLines))
				return nil, io.ErrShortBuffer
			}
			if _, perr := wire.ParseJobResult(l); perr == nil {
				last, l = l, last // kept: the next line is read into the other buffer
			}
		}
		if last == nil {
			return nil, io.EOF
		}
		// The end of the pipe is the worker's exit, and its status is
		// there once it has been waited for (done), which a relay held
		// by a caller that takes no output holds up until it is cut. A
		// worker still alive then closed its pipe and ran on: it is
		// stopped, and its line is not the run's end.
		t := time.NewTimer(resultGrace)
		defer t.Stop()
		select {
		case <-w.done:
			return last, nil
		case <-t.C:
		}
		w.kill()
		<-w.done
		if _, killed := killedBy(w.cmd.ProcessState); killed {
			w.breached(codes.Errorf(codes.E310, "the worker's result pipe ended and the worker "+
				"ran on: it was stopped %s later", resultGrace))
			return nil, io.ErrUnexpectedEOF
		}
		return last, nil
	}
}

// widens reports whether a run under b could change its worker for the
// runs after it: any ffi grant can (raw system calls, the host's os
// module, a module the policy does not know), so such a worker serves no
// other run.
func widens(b budget.Budget) bool { return b.Has(budget.FFI) }

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
