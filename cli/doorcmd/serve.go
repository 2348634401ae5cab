package doorcmd

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sabline/sabline/cli/internal/cmdline"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/receipt/bucket"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/door"
	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/brokenpipe"
	"github.com/sabline/sabline/internal/run"
	"github.com/sabline/sabline/receipt"
)

// doorOptions are the operator's settings of a door, from the flags of
// sabline serve or sabline mcp. A client can narrow the budget and
// nothing else.
type doorOptions struct {
	// absolute: the directory a request's path is read under, and every
	// run's working directory
	ImportRoot  string
	Ceiling     budget.Budget      // --allow: the most a run may be granted
	Confine     core.Mode          // core.ModeDefault or ModeStrict
	Require     core.Level         // --require-confinement; "" for this machine's
	Workers     int                // runs at once
	MaxIdle     int                // idle workers kept however long they wait; negative for none
	IdleTimeout time.Duration      // how long a worker past MaxIdle waits for a run
	OnDemand    bool               // the first worker starts with the first run (sabline mcp)
	Queue       int                // runs waiting past Workers
	Timeout     time.Duration      // per run
	MaxMemoryMB int                // per run, 0 for none
	Receipts    string             // absolute
	Guarded     []string           // locations no grant reaches beside the receipts: the token file
	Tenants     string             // absolute: the tenants file, read again on SIGHUP; "" for none
	Durability  receipt.Durability // how each receipt is kept before its reply
	Keep        cmdline.Retention  // --keep-receipts: which receipts the journal keeps
}

// The defaults of a door's flags: a server's runs are bounded unless the
// operator says otherwise.
const (
	defaultListen      = "127.0.0.1:8080"
	defaultDoorTimeout = 30 * time.Second
	defaultDoorMemory  = 256
	defaultQueue       = 16
	tokenFileName      = "serve.token"
	maxTokenFileBytes  = 4096
	minTokenBytes      = 16
)

// doorFlags are the flags sabline serve and sabline mcp share.
type doorFlags struct {
	importRoot string
	allow      cmdline.List
	confine    string
	require    string
	workers    int
	maxIdle    int
	idle       time.Duration
	queue      int
	timeout    time.Duration
	maxMemory  int
	receipts   string
	durability string
	keep       cmdline.Retention
}

func (f *doorFlags) register(fs *flag.FlagSet) {
	f.workers = max(1, goruntime.NumCPU())
	f.maxIdle = run.DefaultMaxIdle
	f.idle = run.DefaultIdleTimeout
	f.queue = defaultQueue
	f.timeout = defaultDoorTimeout
	f.maxMemory = defaultDoorMemory
	fs.StringVar(&f.importRoot, "import-root", "", "the `directory` a request's path is read under")
	fs.Var(&f.allow, "allow", "the most a run may be granted: budget `items` (repeatable)")
	fs.StringVar(&f.confine, "confine", "", "strict, the one `mode`: granted modules widen nothing")
	fs.StringVar(&f.require, "require-confinement", "", "refuse to run below this `level`: "+
		"full, partial or none (default: the level this machine holds the budget at)")
	fs.IntVar(&f.workers, "workers", f.workers, "`N` runs at once, at least 1")
	fs.IntVar(&f.maxIdle, "max-idle", f.maxIdle, "keep `N` idle workers however long they wait")
	fs.Var((*cmdline.Duration)(&f.idle), "idle-timeout",
		"retire a worker past --max-idle once idle this `duration`")
	fs.IntVar(&f.queue, "queue", f.queue, "`N` runs may wait past --workers")
	fs.Var((*cmdline.Duration)(&f.timeout), "timeout", "stop each run after this `duration`")
	fs.Var((*cmdline.Memory)(&f.maxMemory), "max-memory-mb", "stop each run past this many `MB`")
	fs.StringVar(&f.receipts, "receipts", "", "receipts `directory`")
	fs.StringVar(&f.durability, "durability", string(receipt.Flush),
		"how a receipt is kept before its reply, a `mode`: flush, background or none")
	fs.Var(&f.keep, "keep-receipts", "which receipts the journal keeps, a `rule`: all, "+
		"shipped, an age (7d, 36h) or a size (512MiB); by default all, or until shipped "+
		"with --receipts-url")
}

// options checks the flags and makes the door's settings; relative paths
// in --allow are read against cwd.
func (f *doorFlags) options(cmd, cwd string) (doorOptions, error) {
	var o doorOptions
	if f.importRoot == "" {
		return o, codes.Errorf(codes.E301,
			"sabline %s needs --import-root DIR: the directory a request's path is read under", cmd)
	}
	root, err := filepath.Abs(f.importRoot)
	if err != nil {
		return o, codes.Errorf(codes.E301, "--import-root %s: %w", f.importRoot, err)
	}
	switch fi, err := os.Stat(root); {
	case errors.Is(err, fs.ErrNotExist):
		return o, codes.Errorf(codes.E301, "--import-root %s: no such directory", f.importRoot)
	case err != nil:
		return o, codes.Errorf(codes.E301, "--import-root %s: %w", f.importRoot, err)
	case !fi.IsDir():
		return o, codes.Errorf(codes.E301, "--import-root %s: a file, not a directory", f.importRoot)
	}
	o.ImportRoot = root
	if f.workers < 1 {
		return o, codes.Errorf(codes.E301, "--workers %d: want at least 1", f.workers)
	}
	if f.queue < 0 {
		return o, codes.Errorf(codes.E301, "--queue %d: want 0 or more", f.queue)
	}
	if f.maxIdle < 0 {
		return o, codes.Errorf(codes.E301, "--max-idle %d: want 0 or more", f.maxIdle)
	}
	o.Workers, o.Queue, o.Timeout, o.MaxMemoryMB = f.workers, f.queue, f.timeout, f.maxMemory
	o.Keep = f.keep
	o.MaxIdle, o.IdleTimeout = f.maxIdle, f.idle
	if o.MaxIdle == 0 {
		o.MaxIdle = -1 // the pool's 0 is its default
	}
	if o.Durability, err = receipt.ParseDurability("--durability", f.durability); err != nil {
		return o, err
	}
	if o.Ceiling, err = budget.Parse(f.allow, cwd); err != nil {
		return o, codes.Errorf(codes.E301, "--allow: %w", err)
	}
	if err := checkModules(o.Ceiling); err != nil {
		return o, err
	}
	if o.Confine, o.Require, err = cmdline.Mode(f.confine, false, f.require); err != nil {
		return o, err
	}
	dir := f.receipts
	if dir == "" {
		if dir, err = receipt.DefaultDir(); err != nil {
			return o, err
		}
	}
	if o.Receipts, err = filepath.Abs(dir); err != nil {
		return o, codes.Errorf(codes.E317, "--receipts %s: %w", dir, err)
	}
	return o, nil
}

// serveFlags are the flags of sabline serve.
type serveFlags struct {
	door              doorFlags
	fleet             fleetFlags
	observe           observeFlags
	listen, tokenFile string
	origins           cmdline.List
}

// serveFlagSet is the flag set of sabline serve, and where it puts them:
// the one table of its flags (a deployment's manifests are checked
// against it).
func serveFlagSet() (*flag.FlagSet, *serveFlags) {
	fs := cmdline.NewFlagSet("serve")
	sf := &serveFlags{}
	sf.door.register(fs)
	fs.StringVar(&sf.listen, "listen", defaultListen, "the `address` to listen on")
	fs.StringVar(&sf.tokenFile, "token-file", "",
		"the `file` holding the bearer token (made, mode 0600, when it does not exist)")
	fs.Var(&sf.origins, "allow-origin", "an `origin` (http://HOST[:PORT] or https://HOST[:PORT]) "+
		"requests may come from beside the server's own address (repeatable)")
	sf.fleet.register(fs)
	sf.observe.register(fs)
	return fs, sf
}

// tenantsWithTokenFile is the E301 of --tenants given with --token-file.
const tenantsWithTokenFile = "give --tenants FILE or --token-file FILE, not both: " +
	"the tenants file names every token"

// serveCmd: sabline serve --import-root DIR [--listen ADDR] [--token-file
// FILE] [run flags]: the HTTP door, until SIGINT or SIGTERM.
func serveCmd(args []string, stdout, stderr io.Writer) int {
	// The runs under way finish with their receipts; the store agent,
	// which --store-agent may name, finds SIGPIPE at its default.
	brokenpipe.Catch()
	fs, sf := serveFlagSet()
	positional, rest, err := cmdline.ParseInterspersed(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr)
	}
	f, ff, listen, tokenFile, origins := &sf.door, sf.fleet, &sf.listen, &sf.tokenFile, sf.origins
	if extra := append(positional, rest...); len(extra) > 0 {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "sabline serve takes no program (got %s): clients send them",
				strings.Join(extra, " ")), "")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "working directory: %w", err), "")
	}
	o, err := f.options("serve", cwd)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	if err := sf.observe.check(); err != nil {
		return cmdline.Report(stderr, err, "")
	}
	stderr, logger, endLog := startLog(stderr, "serve", sf.observe.logFormat == logJSON)
	defer endLog()
	enterNodev(stderr, "serve")
	if _, _, err := net.SplitHostPort(*listen); err != nil {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "--listen %s: not an address HOST:PORT (127.0.0.1:8080, say)",
				*listen), "")
	}
	if !loopback(*listen) && *tokenFile == "" && ff.tenants == "" {
		return cmdline.Report(stderr,
			codes.Errorf(codes.E301, "--listen %s is not a loopback address: give --token-file FILE "+
				"or --tenants FILE, so that the tokens are ones you hand out yourself", *listen), "")
	}
	cfg := door.Config{
		Workers: o.Workers,
		Queue:   o.Queue,
		Origins: origins,
		Logf:    doorLog(stderr, "serve"),
		Logger:  logger,
	}
	var path, token string
	var made bool
	switch {
	case ff.tenants != "" && *tokenFile != "":
		return cmdline.Report(stderr, codes.Errorf(codes.E301, tenantsWithTokenFile), "")
	case ff.tenants != "":
		if path, err = filepath.Abs(ff.tenants); err != nil {
			return cmdline.Report(stderr, codes.Errorf(codes.E301, "--tenants %s: %w", ff.tenants, err), "")
		}
		o.Tenants = path
		if cfg.Tenants, err = loadTenants(path, o, cwd); err != nil {
			return cmdline.Report(stderr, err, "")
		}
	default:
		path = *tokenFile
		if path == "" {
			path = filepath.Join(o.Receipts, tokenFileName)
		}
		if token, made, err = loadToken(path, *tokenFile == ""); err != nil {
			return cmdline.Report(stderr, err, "")
		}
		cfg.Token = token
	}
	o.Guarded = append(o.Guarded, path) // beside the receipts, which the pool guards always
	// The token file (or the tenants file, which names every token) is
	// made known to the register, so that no run of another Sabline on
	// this machine reaches it: a server whose tokens cannot be is not
	// started (E331), nor one whose receipts or runs directory cannot be
	// (startPool).
	if abs, err := filepath.Abs(path); err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "%s: %w", path, err), "")
	} else if err := guard.JoinAs("the token file "+abs, abs); err != nil {
		return cmdline.Report(stderr, err, "")
	}
	pool, runner, err := startPool(o)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	fl, err := startFleet(ff, o, runner, stderr)
	if err != nil {
		pool.Close()
		return cmdline.Report(stderr, err, "")
	}
	defer func() {
		pool.Close() // its last receipts are appended before they are shipped
		fl.close(stderr)
	}()
	store, err := keepReceipts(o, fl != nil)
	if err != nil {
		return cmdline.Report(stderr, err, "")
	}
	rd := &ready{workers: pool, store: store, maxLag: ff.maxLag}
	cfg.Runner, cfg.Ready = runner, rd.check
	if fl != nil {
		cfg.Shipping, rd.shipped = fl.shipper, fl.shipper.Status
	}
	srv, err := door.New(cfg)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "--allow-origin: %w", err), "")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return cmdline.Report(stderr, codes.Errorf(codes.E301, "--listen %s: %w", *listen, err), "")
	}
	var metricsAddr net.Addr
	if sf.observe.metricsListen != "" {
		mln, stopMetrics, err := serveMetrics(srv, sf.observe.metricsListen)
		if err != nil {
			ln.Close()
			return cmdline.Report(stderr, err, "")
		}
		defer stopMetrics()
		metricsAddr = mln.Addr()
	}
	// From here the server reads, writes and starts only what it and its
	// workers need (docs/serve.md, "What the server itself may touch").
	fmt.Fprintf(stderr, "sabline serve: %s\n", codes.TerminalSafe(holdServer(o)))
	switch {
	case o.Tenants != "":
		fmt.Fprintf(stderr, "sabline serve: %s in %s (read again on SIGHUP)\n",
			tenantsText(len(cfg.Tenants)), codes.TerminalSafe(path))
	case made:
		fmt.Fprintf(stderr, "sabline serve: made a token in %s\n", codes.TerminalSafe(path))
	default:
		fmt.Fprintf(stderr, "sabline serve: token in %s\n", codes.TerminalSafe(path))
	}
	if fl != nil {
		fmt.Fprintf(stderr, "sabline serve: shipping receipts to %s every %s\n",
			codes.TerminalSafe(bucket.Redact(ff.receiptsURL)), ff.shipEvery)
	}
	if metricsAddr != nil {
		fmt.Fprintf(stderr, "sabline serve: metrics on http://%s/metrics\n", metricsAddr)
	}
	// The signals are taken before the server says where it listens: a
	// SIGTERM sent once it has said so takes the stop path.
	ctx, stop, release := stopOnSignals("serve", stderr, srv.Halt, os.Interrupt, syscall.SIGTERM)
	defer release()
	fmt.Fprintf(stderr,
		"sabline serve: listening on %s (import root %s, budget %s, %d workers, queue %d)\n", ln.Addr(),
		codes.TerminalSafe(o.ImportRoot), codes.TerminalSafe(ceilingText(o.Ceiling)), o.Workers, o.Queue)
	agentEnded := watchFleet(ctx, stop, fl, stderr)
	go reloadOnHangUp(ctx, srv, o, cwd, stderr)
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "sabline serve: %s\n", codes.TerminalSafe(err.Error()))
		return codes.ExitFailed
	}
	if agentEnded() {
		return codes.ExitFailed
	}
	fmt.Fprintln(stderr, "sabline serve: stopped")
	return 0
}

// loopback reports whether a listen address is on the loopback interface
// only: localhost, or a loopback IP. An empty host (every interface) is
// not.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tokenFileModeDo is what to do about a token file others can read.
const tokenFileModeDo = "chmod 600 the token file, or name a file that does not exist yet " +
	"(sabline serve makes it, mode 0600)."

// tokenFileOwnerDo is what to do about a token file another user owns.
const tokenFileOwnerDo = "Name a token file you own (or root does), or one that does not exist " +
	"yet (sabline serve makes it, mode 0600)."

// loadToken reads the token in path, or, when there is no file there,
// makes one (32 random bytes, hex) in a new file of mode 0600. fresh asks
// for a new token even when the file exists (the default token file in
// the receipts directory is remade at each start). A token file another
// user could read, or that a user other than this one and root owns, is
// refused.
func loadToken(path string, fresh bool) (token string, made bool, err error) {
	if fresh {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", false, codes.Errorf(codes.E301, "token file %s: %w", path, err)
		}
	}
	// Not waiting on a named pipe at the name: it is refused below, as
	// anything but a regular file is, rather than hold the server's start.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", false, codes.Errorf(codes.E301, "make a token: %w", err)
		}
		token = hex.EncodeToString(b[:])
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", false, codes.Errorf(codes.E301, "token file %s: %w", path, err)
		}
		nf, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", false, codes.Errorf(codes.E301, "token file %s: %w", path, err)
		}
		_, err = nf.WriteString(token + "\n")
		if cerr := nf.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", false, codes.Errorf(codes.E301, "token file %s: %w", path, err)
		}
		return token, true, nil
	}
	if err != nil {
		return "", false, codes.Errorf(codes.E301, "token file %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", false, codes.Errorf(codes.E301, "token file %s: not a regular file", path)
	}
	if goruntime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		e := codes.Errorf(codes.E301, "token file %s has mode %s: others can read it", path,
			fi.Mode().Perm())
		e.Do = tokenFileModeDo
		return "", false, e
	}
	if uid, another := guard.OwnedByAnother(fi); another {
		// Its owner chose the token, and may change it: root reads a
		// file of mode 0600 whoever owns it.
		e := codes.Errorf(codes.E301, "token file %s is owned by uid %d, neither you (uid %d) nor "+
			"root: its owner can set the token", path, uid, os.Geteuid())
		e.Do = tokenFileOwnerDo
		return "", false, e
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes+1))
	if err != nil {
		return "", false, codes.Errorf(codes.E301, "token file %s: %w", path, err)
	}
	token = strings.TrimSpace(string(data))
	switch {
	case len(data) > maxTokenFileBytes:
		return "", false, codes.Errorf(codes.E301, "token file %s: larger than %d bytes", path,
			maxTokenFileBytes)
	case len(token) < minTokenBytes || strings.ContainsAny(token, " \t\r\n"):
		return "", false, codes.Errorf(codes.E301,
			"token file %s: want one token of at least %d characters, without blanks", path,
			minTokenBytes)
	}
	return token, false, nil
}

// startPool starts the operator's pool, every worker confined once with
// the ceiling before this returns (on demand, the first worker with the
// first run), so that a server that cannot hold what its operator asked
// fails at start; and the door's runner over it.
func startPool(o doorOptions) (*sabline.Pool, *door.PoolRunner, error) {
	pool, err := sabline.NewPool(sabline.PoolOptions{
		Budget:      o.Ceiling,
		Workers:     o.Workers,
		Timeout:     o.Timeout,
		MaxMemoryMB: o.MaxMemoryMB,
		Confine:     sabline.Confine(o.Confine),
		Require:     o.Require,
		ImportRoot:  o.ImportRoot,
		Receipts:    o.Receipts,
		Guarded:     o.Guarded,
		MaxIdle:     o.MaxIdle,
		IdleTimeout: o.IdleTimeout,
		OnDemand:    o.OnDemand,
		Durability:  o.Durability,
	})
	if err != nil {
		return nil, nil, err
	}
	runner, err := door.NewPoolRunner(pool)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return pool, runner, nil
}

// keepReceipts opens the door's receipts store and sets which receipts its
// journal keeps (--keep-receipts), for a door that ships them (shipping)
// or not.
func keepReceipts(o doorOptions, shipping bool) (*receipt.Store, error) {
	store, err := receipt.OpenStore(o.Receipts)
	if err != nil {
		return nil, err
	}
	if err := store.Retain(o.Keep.Of(shipping), shipping); err != nil {
		var e *codes.Error
		if errors.As(err, &e) {
			e.Msg = "--keep-receipts: " + e.Msg // the flag that asked for it
		}
		return nil, err
	}
	return store, nil
}

// ceilingText is the operator's budget as a message says it.
func ceilingText(b budget.Budget) string {
	if s := b.String(); s != "" {
		return s
	}
	return "nothing granted"
}

// doorLog writes a door's log lines to w, each after "sabline CMD: ".
func doorLog(w io.Writer, cmd string) func(format string, args ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "sabline %s: %s\n", cmd, fmt.Sprintf(format, args...))
	}
}
