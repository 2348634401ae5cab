package lang

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/bounded"
	"github.com/sabline/sabline/internal/httpget"
)

// Interp runs compiled programs under a budget. Every effect builtin asks
// Interp.check before it touches anything; a refusal is an *Error with a
// stable code. An Interp runs one program once.
type Interp struct {
	thread  atomic.Pointer[starlark.Thread] // the running program's, for Stop
	stopped atomic.Pointer[string]          // why Stop was called
	// halted is done once Stop is called: a connection the program waits
	// on (its dial, a recv, an HTTP GET) ends then, not when the peer
	// answers, so that a stop holds where no worker is killed after it
	// (a run in the caller's own process).
	halted   context.Context
	halt     context.CancelFunc
	meter    *budget.Meter
	fs       *fsTree // the anchors file effects walk from
	cwd      string
	guard    *guard.Set // what no grant reaches by being broader
	args     []string
	stdin    *bufio.Reader // made of stdinOf at its first read (input)
	stdinOf  io.Reader
	inputs   sync.Once
	ownTool  bool // no Config.Tool: tool calls share the standard input (input)
	stdout   io.Writer
	tool     *ToolChannel
	env      func(string) (string, bool)
	layers   []string // the layers the kernel holds under this run
	refusal  Refusal  // names a refusal of theirs; nil for none
	registry *Registry
	dialFunc DialFunc // opens every connection of the run
	ownDial  bool     // no Config.Dial: the run dials itself (netCheck)
	// open are the run's connections (net.connect, net.udp) it has not
	// closed: Exec closes them as the program ends.
	open map[*conn]struct{}
	// made counts the connections a run that dials itself has made
	// (counted).
	made int
	// writeGrants are the paths fs:write:PATH (or fs:PATH) items name:
	// each a directory, made before the run when it did not exist.
	writeGrants []string

	keepCompiled bool // Config.KeepCompiled
}

// Config is what an Interp needs to know about its run.
type Config struct {
	Budget budget.Budget
	Cwd    string // absolute; relative paths in the program are taken against it
	// Guard is what no grant reaches by being broader: credential
	// locations, homes' dot-entries, Sabline's receipts, the kernel's
	// files. nil: DefaultGuard.
	Guard  *guard.Set
	Args   []string  // the program's own arguments, after --
	Stdin  io.Reader // tool answers and io.read_line read from here
	Stdout io.Writer // io.print and tool lines go here
	// Layers are the layers the kernel holds under this run, as
	// confinement names them; Refusal names which of them may have
	// refused an effect. With either unset, no failure is taken for a
	// kernel's refusal (a program run in its host's own process).
	Layers   []string
	Refusal  Refusal
	Registry *Registry // host modules; nil means DefaultRegistry
	// KeepCompiled lets the run take the files it compiles from the
	// process's cache of compiled files, and leave them there, instead of
	// compiling each again (compiled.go). What one run can learn of
	// another by it is the time a compile takes (docs/THREAT_MODEL.md):
	// set it only where the runs that share a process may learn that of
	// each other.
	KeepCompiled bool
	// Tool is the channel of tool.call (NewToolChannel). nil: Stdin and
	// Stdout carry it, which suits a program run in its host's own
	// process; a worker always sets it, with no ends when it has none.
	Tool *ToolChannel
	// Relayed are the caller's files a worker's standard streams are
	// relayed to (its own are pipes): a file effect refuses them as it
	// refuses the process's own standard descriptors.
	Relayed []FileID
	// Dial, when set, opens every connection the run makes, the language's
	// and its host modules' alike: a confined worker's asks its supervisor
	// (internal/broker). nil: the run dials itself, its names looked up
	// over TCP (see resolver).
	Dial DialFunc
}

// DialFunc opens a connection to address, a host and port, over network
// (tcp or udp), as net.Dialer.DialContext does.
type DialFunc = httpget.DialFunc

// Hold records the layers the operating system holds under this run, once
// the worker has applied them: a refusal's message names the layer that
// made it.
func (in *Interp) Hold(layers []string) { in.layers = layers }

// NewInterp returns an Interp for one run. Granted directories are
// resolved here, once, by walking them as any effect is, so that a
// directory swapped for a link later does not carry its grant elsewhere;
// each is also opened, as an anchor file effects walk from.
func NewInterp(c Config) *Interp {
	reg := c.Registry
	if reg == nil {
		reg = DefaultRegistry
	}
	dirs := []string{c.Cwd}
	var writes []string
	for _, it := range c.Budget.Of(budget.FS) {
		dirs = append(dirs, it.Path)
		if it.Path != "" && it.Access != budget.Read {
			writes = append(writes, it.Path)
		}
	}
	tree := newFSTree(dirs, c.Relayed, os.Stdin, os.Stdout, os.Stderr)
	g := c.Guard
	if g == nil {
		g = DefaultGuard()
	}
	in := &Interp{
		meter:    budget.NewMeter(c.Budget, tree.canonical),
		fs:       tree,
		cwd:      c.Cwd,
		guard:    g,
		args:     c.Args,
		stdinOf:  c.Stdin,
		ownTool:  c.Tool == nil,
		stdout:   c.Stdout,
		tool:     c.Tool,
		env:      os.LookupEnv,
		layers:   c.Layers,
		refusal:  c.Refusal,
		registry: reg,
		dialFunc: c.Dial,

		writeGrants: writes,

		keepCompiled: c.KeepCompiled,
	}
	if in.dialFunc == nil {
		in.dialFunc, in.ownDial = dialer.DialContext, true
	}
	in.halted, in.halt = context.WithCancel(context.Background())
	return in
}

// input is the run's standard input, buffered, made at its first read
// (most programs read none, and the buffer is 4 KB), with, when its
// Config gave no tool channel, the channel that shares it (in a program's
// own process: an embedder running an Interp itself, a test; the Stdin
// and Stdout of its Config, which the embedder then holds alone).
func (in *Interp) input() *bufio.Reader {
	in.inputs.Do(func() {
		in.stdin = bufio.NewReader(haltable(in.halted, in.stdinOf))
		if in.ownTool {
			in.tool = &ToolChannel{w: in.stdout, r: in.stdin}
		}
	})
	return in.stdin
}

// haltable is r, read until halted is done (Stop): a read that waits
// on r past then fails, and the goroutine that made it is left to wait
// on r alone, as nothing else can end a Read; what it reads then is
// dropped. A reader in memory, which never waits, is read as it is.
func haltable(halted context.Context, r io.Reader) io.Reader {
	if r == nil || bounded.InMemory(r) {
		return r
	}
	return &haltableReader{halted: halted, r: r}
}

type haltableReader struct {
	halted context.Context
	r      io.Reader
}

// errHalted is the error of a read of the standard input that a stop
// ended; the run's error says it was stopped (runError).
var errHalted = errors.New("the run was stopped while it read its standard input")

func (h *haltableReader) Read(p []byte) (int, error) {
	if h.halted.Err() != nil {
		return 0, errHalted
	}
	type read struct {
		b   []byte
		err error
	}
	got := make(chan read, 1)
	go func() {
		b := make([]byte, len(p)) // not p: the caller may reuse it once halted
		n, err := h.r.Read(b)
		got <- read{b[:n], err}
	}()
	select {
	case g := <-got:
		return copy(p, g.b), g.err
	case <-h.halted.Done():
		return 0, errHalted
	}
}

// Usage reports how often each grant was used.
func (in *Interp) Usage() []budget.Usage { return in.meter.Usage() }

// Predeclared returns the names every program sees: the effect modules,
// print, declassify and the program's arguments.
func (in *Interp) Predeclared() starlark.StringDict {
	d := make(starlark.StringDict, len(predeclared))
	for name, value := range predeclared {
		d[name] = value(in)
	}
	return d
}

// PredeclaredFor returns the names of Predeclared that c's files use,
// which their compile recorded: all a run of c looks up. A run pays for
// the modules it names and no others. A name c was compiled against that
// Predeclared does not bind is not in it: a program compiled with names
// of the caller's own runs with Predeclared and those. A Compiled that
// Compile did not make records nothing, and is given all of Predeclared.
func (in *Interp) PredeclaredFor(c *Compiled) starlark.StringDict {
	if c.uses == nil {
		return in.Predeclared()
	}
	d := make(starlark.StringDict, len(c.uses))
	for name := range c.uses {
		if value, ok := predeclared[name]; ok {
			d[name] = value(in)
		}
	}
	return d
}

// PredeclaredNames returns the names of Predeclared, each bound to None:
// all that Compile reads of them. A run compiles with it, then runs with
// PredeclaredFor.
func PredeclaredNames() starlark.StringDict {
	d := make(starlark.StringDict, len(predeclared))
	for name := range predeclared {
		d[name] = starlark.None
	}
	return d
}

// predeclared is the one table of the names Predeclared binds, each with
// how an interpreter makes its value for a run.
var predeclared = map[string]func(in *Interp) starlark.Value{
	"print": func(in *Interp) starlark.Value { return starlark.NewBuiltin("print", in.print) },
	"declassify": func(in *Interp) starlark.Value {
		return starlark.NewBuiltin("declassify", in.declassify)
	},
	"ARGS": func(in *Interp) starlark.Value {
		args := make([]starlark.Value, len(in.args))
		for i, a := range in.args {
			args[i] = starlark.String(a)
		}
		return starlark.NewList(args)
	},
	"io":    func(in *Interp) starlark.Value { return in.ioModule() },
	"fs":    func(in *Interp) starlark.Value { return in.fsModule() },
	"net":   func(in *Interp) starlark.Value { return in.netModule() },
	"env":   func(in *Interp) starlark.Value { return in.envModule() },
	"clock": func(in *Interp) starlark.Value { return in.clockModule() },
	"rand":  func(in *Interp) starlark.Value { return in.randModule() },
	"tool":  func(in *Interp) starlark.Value { return in.toolModule() },
	"ffi":   func(in *Interp) starlark.Value { return in.ffiModule() },
	"struct": func(*Interp) starlark.Value {
		return starlark.NewBuiltin("struct", starlarkstruct.Make)
	},
	// The language's own range and enumerate, in place of go.starlark.net's
	// (rangeval.go, enumerate.go).
	"range":     func(*Interp) starlark.Value { return rangeFunc },
	"enumerate": func(*Interp) starlark.Value { return enumerateFunc },
	loopTrue:    func(*Interp) starlark.Value { return starlark.True },
}

// Exec runs the compiled program's first statement and the rest. It
// returns nil when the program ends normally. A panic in a builtin or a
// host module ends the run with E310 (E305 for a value the program asked
// for past any memory: panicError), not the process that runs it; a
// fatal error of the runtime does end the process (a value nested
// millions deep, printed, passes Go's stack limit in go.starlark.net's
// writeValue, which bounds no depth), which is why a run of a program
// not trusted runs in a worker.
func (in *Interp) Exec(c *Compiled, predeclared starlark.StringDict) (err error) {
	// A connection the program left open is not left to the process that
	// ran it: a pool's worker runs the next caller's program, and the
	// caller's own process goes on (TestExecClosesWhatItLeftOpen).
	defer in.closeOpen()
	defer in.fs.close() // nor the directories its file effects walk from
	defer func() {
		if r := recover(); r != nil {
			err = panicError(r, panicSite())
		}
	}()
	cache := map[string]starlark.StringDict{}
	var load func(t *starlark.Thread, module string) (starlark.StringDict, error)
	thread := &starlark.Thread{Name: "main"}
	thread.SetLocal(dialLocal, in.dialFunc)
	load = func(t *starlark.Thread, module string) (starlark.StringDict, error) {
		from := t.CallFrame(0).Pos.Filename()
		target := loadTarget(from, module)
		if g, ok := cache[target]; ok {
			return g, nil
		}
		prog, ok := c.Files[target]
		if !ok { // Compile found every load; this is a fault of ours.
			return nil, codes.Errorf(codes.E306, "%s was not compiled before the run", target)
		}
		g, err := prog.Init(t, predeclared)
		if err != nil {
			return nil, err
		}
		g.Freeze()
		cache[target] = g
		return g, nil
	}
	thread.Load = load
	in.thread.Store(thread)
	if why := in.stopped.Load(); why != nil {
		thread.Cancel(*why)
	}
	_, initErr := c.Files[c.Main].Init(thread, predeclared)
	return in.runError(initErr)
}

// panicError is the error of a run a panic ended, raised in the call of
// the function site (panicSite). go.starlark.net makes room at once for
// a length the program gives it (list(range(1 << 61)), enumerate, zip,
// sorted, a split's count, a replace's result), and the Go runtime
// refuses a size past what a process can address with a panic: that is
// the program asking for a value larger than any memory holds, its own
// doing (E305, as Starlark's own refusal of a repeat past its bound is),
// not a fault of Sabline's. Any other panic is a fault in Sabline or in a
// host module (E310).
func panicError(r any, site string) error {
	if e, ok := r.(goruntime.Error); ok && strings.HasPrefix(site, "go.starlark.net/") &&
		sizePanic(e.Error()) {
		return codes.Errorf(codes.E305, "the program asked for a value larger than any memory "+
			"holds (%v); where it was is not known: the panic unwound the interpreter's calls", e)
	}
	return codes.Errorf(codes.E310, "internal error: %v", r)
}

// sizePanic reports whether msg is the Go runtime's refusal of a slice's
// size: too large to make, or to grow to.
func sizePanic(msg string) bool {
	for _, p := range []string{"runtime error: makeslice: ", "runtime error: growslice: "} {
		if strings.HasPrefix(msg, p) && strings.HasSuffix(msg, " out of range") {
			return true
		}
	}
	return false
}

// panicSite is the function whose call panicked, for the deferred
// function that recovered the panic: the first frame below the runtime's
// panic that is not Go's own (the runtime's or the standard library's,
// through which a program's size reaches the runtime too: a replace
// whose result is past any memory, in strings.Replace); "" when none is
// found.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := goruntime.CallersFrames(pcs[:goruntime.Callers(2, pcs)])
	panicked := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicked = true
		case panicked && !standard(f.Function):
			return f.Function
		}
		if !more {
			return ""
		}
	}
}

// standard reports whether fn, a function's full name, is of Go's
// standard library, the runtime among it: the first element of its
// package's path holds no dot. A main package's (an embedder's host
// module) is not.
func standard(fn string) bool {
	dir, name := "", fn
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		dir, name = fn[:i+1], fn[i+1:]
	}
	pkg, _, _ := strings.Cut(name, ".")
	first, _, _ := strings.Cut(dir+pkg, "/")
	return dir+pkg != "main" && !strings.Contains(first, ".")
}

// Stop ends the running program at its next step, with E307 and the
// position and call stack it had reached: the worker calls it when the
// supervisor's deadline passes. A connection the program waits on (a
// dial, a recv, an HTTP GET) and a read of its standard input (haltable)
// end at once; a host module's call blocked in the system ends only when
// that call returns.
func (in *Interp) Stop(why string) {
	in.stopped.Store(&why)
	if t := in.thread.Load(); t != nil {
		t.Cancel(why)
	}
	in.halt()
}

// runError gives every error out of the interpreter a code, the program
// position it happened at (the innermost frame in a program file), and the
// call stack across the loaded files, innermost first, each frame as
// file:line:col and the function it is in, cut as codes.Stack cuts it
// (however deep the calls, the record stays small). An error that is no *Error of
// the runtime's own came from the program or from a host module; when its
// errno is a confinement layer's refusal (a host module's own call held
// by the kernel), it is E319.
func (in *Interp) runError(err error) error {
	if err == nil {
		return nil
	}
	var ee *starlark.EvalError
	pos := ""
	var stack []string
	if errors.As(err, &ee) {
		var frames []starlark.CallFrame // in the program's files, innermost first
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if fr := ee.CallStack[i]; fr.Pos.Filename() != "<builtin>" && fr.Pos.Line > 0 {
				frames = append(frames, fr)
			}
		}
		if len(frames) > 0 {
			pos = codes.Clip(frames[0].Pos.String(), codes.MaxFrameBytes)
			stack = codes.Stack(len(frames),
				func(i int) string { return frames[i].Pos.String() + " in " + frames[i].Name })
		}
	}
	if why := in.stopped.Load(); why != nil {
		return &codes.Error{Code: codes.E307, Msg: *why, Pos: pos, Stack: stack, Err: err}
	}
	var re *codes.Error
	if errors.As(err, &re) {
		out := *re
		if out.Pos == "" {
			out.Pos = pos
		}
		if out.Stack == nil && out.Pos == pos {
			out.Stack = stack
		}
		return &out
	}
	msg := err.Error()
	if ee != nil {
		msg = ee.Msg
	}
	if refused := in.kernelRefused(err, func(string) string {
		return msg + ": the kernel refused it"
	}); refused != nil {
		refused.Pos, refused.Stack = pos, stack
		return refused
	}
	return &codes.Error{Code: codes.E305, Msg: msg, Pos: pos, Stack: stack, Err: err}
}

// check asks the budget for an effect and charges the grant that covers
// it. The knock-out build lets everything through (find, knockout_on.go).
func (in *Interp) check(e budget.Effect) error {
	i, err := in.find(e)
	if err == nil {
		in.charge(i)
	}
	return err
}

// findGrant returns the grant that would be charged for e, without
// charging it, or the refusal: E302, E303, or E318 for a guarded location
// under a broader grant (guard.Set.Refuses). Effects find it through find,
// which in the knock-out build returns -1 and no refusal.
func (in *Interp) findGrant(e budget.Effect) (int, error) {
	i, err := in.meter.Find(e)
	switch {
	case errors.Is(err, budget.ErrUsedUp):
		return -1, &codes.Error{Code: codes.E303, Msg: err.Error(), Err: err}
	case err != nil:
		return -1, &codes.Error{Code: codes.E302, Msg: err.Error(), Err: err}
	}
	if e.Kind == budget.FS {
		if l, refused := in.guard.Refuses(e.Path, in.meter.Matched(i).Path); refused {
			return -1, guardedRefusal(e.Path, l, in.meter.Budget().Items[i])
		}
	}
	return i, nil
}

// guardedRefusal is the E318 of an effect on p, in the guarded location
// l, under grant.
func guardedRefusal(p string, l guard.Location, grant budget.Item) error {
	return codes.Errorf(codes.E318, "%s is in %s, %s; the grant %s is broader than it", p, l.Path,
		guardedWhat(l), grant)
}

// guardedWhat says what the guarded location l holds and which grants
// reach it.
func guardedWhat(l guard.Location) string {
	switch l.Kind {
	case guard.Credential:
		return "a credential location (" + l.Holds +
			"): a grant reaches it only where the operator lends it (--lend-credential) and the grant " +
			"names it"
	case guard.DotEntry:
		return "a dot-entry of a home: a grant reaches it only by naming it (fs:read:" + l.Path + ")"
	}
	return l.Holds + ", which no grant reaches"
}

// DefaultGuard is what an Interp without Config.Guard guards: the
// locations of the tables, the home of the user running it (HOME's, and
// the user database's where HOME names another place), the
// operator's SABLINE_CREDENTIALS, and every Sabline's own locations the
// register of this machine names (guard.RegisteredLocations; a register
// that cannot be read adds none), and the kernel's file systems wherever
// the mount table says they are mounted, resolved now.
func DefaultGuard() *guard.Set {
	home, _ := os.UserHomeDir()
	sabline, r, _ := guard.RegisteredLocations()
	mounts, _ := guard.ReadMounts()
	return guard.Build(guard.Inputs{
		Home:        home,
		AccountHome: guard.AccountHome(),
		Sabline:     sabline,
		Owned:       r.Owners,
		Credentials: guard.OperatorCredentials(),
		Mounts:      mounts,
	}, guard.OS())
}

// charge counts a use of grant i, as find returned it.
func (in *Interp) charge(i int) {
	if i >= 0 {
		in.meter.Charge(i)
	}
}

// osError classifies an error the operating system returned for an effect
// the budget allowed: a refusal by a confinement layer that holds this kind
// of effect is E319 naming those layers; anything else is code.
func (in *Interp) osError(code codes.Code, what string, err error) error {
	said := func(errno string) string {
		return fmt.Sprintf("%s: the kernel refused it (%s)", what, errno)
	}
	if refused := in.kernelRefused(err, said); refused != nil {
		return refused
	}
	return &codes.Error{Code: code, Msg: fmt.Sprintf("%s: %v", what, err), Err: err}
}

// kernelRefused is the E319 of err, said after what says the errno, when
// err's errno is one an applied layer answers with (the run's Refusal),
// and nil otherwise. The errno says which layers may have refused, not
// that one did: a non-root run's EACCES may be the file's own
// permissions, and the message says so.
func (in *Interp) kernelRefused(err error, what func(errno string) string) *codes.Error {
	if in.refusal == nil {
		return nil
	}
	errno, layers := in.refusal(err, in.layers)
	if len(layers) == 0 {
		return nil
	}
	msg := what(errno) + "; refused by: " + LayerList(layers)
	if errors.Is(err, syscall.EACCES) && os.Geteuid() != 0 {
		// Root keeps CAP_DAC_OVERRIDE, so its EACCES is Landlock's;
		// another user's may be the file's own permissions.
		msg += " (or the file's own permissions: the run is not root)"
	}
	return &codes.Error{Code: codes.E319, Msg: msg, Err: err}
}

// abs makes a program's path absolute against the run's directory. It
// cleans nothing: ".." and links are the walk's to take, as the kernel
// takes them.
func (in *Interp) abs(p string) string {
	if filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return p
	}
	return in.cwd + string(filepath.Separator) + p
}
