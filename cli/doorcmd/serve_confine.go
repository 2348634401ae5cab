package doorcmd

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/run"
)

// errServerNotConfined is the error of confineServer on a system where a
// door's own process cannot be held: the workers still are, each by its
// own policy, and the door says so at start.
var errServerNotConfined = errors.New("the server process itself is not confined on this system")

// serverEnv is what of the machine a door's own domain names besides its
// options: its executable (each worker is a new start of it) and the
// directory the pool makes its workers' temporary directories in
// (run.RunsDir).
type serverEnv struct {
	Exe     string
	TempDir string
	// Loader is the program interpreter a dynamically linked executable
	// names (its PT_INTERP, /lib64/ld-linux-x86-64.so.2), "" for a
	// static one (CGO_ENABLED=0): starting a worker then executes it and
	// reads the shared libraries.
	Loader string
	// Cgroups is the directory the door makes its workers' memory cgroups
	// in (confine.WorkerCgroups), "" for none.
	Cgroups string
}

// serverLibraries are where a dynamically linked executable's loader
// reads the shared libraries from.
var serverLibraries = []string{"/etc/ld.so.cache", "/lib", "/lib64", "/usr/lib", "/usr/lib64"}

// rule lets the door's process reach a path, and what lies beneath it:
// the workers' own rules and the door's (see serverRules).
type rule = linux.LandlockRule

// serverDomain is the Landlock domain a door's process holds itself to
// once its pool is started and its listener bound: a ruleset confine
// applies as it applies a worker's.
type serverDomain struct {
	linux.LandlockRuleset
	// Skip, when set, says why the door holds nothing: its workers'
	// policy enforces nothing, and a child can only narrow what its
	// parent holds.
	Skip string
}

// serverRules derives the domain a door's process holds itself to from
// the operator's options. A worker the door starts later (a replacement)
// begins inside this domain and adds its own narrower one, so the
// domain is the workers' own plan (linux.LandlockPlan of the pool's
// policy: the budget, reads of the import root, the interpreter's
// needs), widened by what the door itself does:
//
//   - execute and read its own executable, to start a worker;
//   - read and write the receipts directory (the default token file is
//     in it; a token file elsewhere is read at start, before this);
//   - make, fill and remove the workers' temporary directories beneath
//     env.TempDir;
//   - make, fill and remove its workers' memory cgroups, where it makes
//     them (confine.WorkerCgroups);
//   - read /proc: a worker lists its /proc/self/fd and reads
//     /proc/self/statm before it holds itself, and the door reads
//     /proc/self/status when it audits;
//   - read the directory of the tenants file, when it has one, which it
//     reads again on SIGHUP (the directory: a Kubernetes Secret is
//     replaced by a new file beside the old one).
//
// The store agent of --receipts-url is started before the door holds
// itself, outside its domain: it reaches the store, the door does not.
//
// It binds nothing (its one listener is bound already) and connects only
// where the workers may, from the ABI that holds TCP (LandlockABITCP):
// below it the door's own TCP is held by nothing. Signals are not scoped:
// the workers started before the door held itself are outside its
// domain, and the door must still stop them. It is pure: the same options
// give the same domain on every system.
// workersUnconfined is why a server whose budget leaves its workers
// unconfined does not hold itself.
const workersUnconfined = "the budget leaves the workers unconfined, and a worker can only " +
	"narrow what the server holds"

func serverRules(o doorOptions, env serverEnv, abi int) (serverDomain, error) {
	read := budget.Item{Kind: budget.FS, Access: budget.Read, Path: o.ImportRoot}
	pol := core.OSPolicy(o.Ceiling.With(read), core.Options{Mode: o.Confine})
	if !pol.Enforced {
		return serverDomain{Skip: workersUnconfined}, nil
	}
	needs := linux.LinuxNeeds(pol, env.Exe, env.TempDir)
	plan, err := linux.LandlockPlan(pol, needs, abi)
	if err != nil {
		return serverDomain{}, fmt.Errorf("derive the server's domain: %w", err)
	}
	d := serverDomain{LandlockRuleset: plan}
	d.Scoped = plan.Scoped & linux.LandlockScopeAbstractUnixSocket
	// The workers connect nowhere themselves: the door's broker makes
	// their connections, to the ports their grants name when every one
	// names one (and 53, where a name server's long answer comes over
	// TCP), anywhere otherwise. It binds nothing.
	if plan.HandledNet != 0 {
		d.HandledNet, d.ConnectTCP = linux.LandlockNetBindTCP, nil
		if ports, ok := brokerPorts(pol.Network); ok {
			d.HandledNet |= linux.LandlockNetConnectTCP
			d.ConnectTCP = ports
		}
	}
	d.Rules = nil // the workers' rules again, each saying whose it is
	for _, r := range plan.Rules {
		d.Rules = append(d.Rules,
			rule{Path: r.Path, Access: r.Access, Grant: r.Grant, Why: "workers: " + r.Why})
	}
	readRights := linux.LandlockFSReadFile | linux.LandlockFSReadDir
	writeRights := linux.LandlockFSWriteFile | linux.LandlockFSTruncate |
		linux.LandlockFSMakeReg | linux.LandlockFSMakeDir | linux.LandlockFSRemoveFile |
		linux.LandlockFSRemoveDir
	own := []rule{
		{Path: env.Exe, Access: linux.LandlockFSExecute | linux.LandlockFSReadFile,
			Why: "server: start a worker"},
		{Path: o.Receipts, Access: readRights | writeRights, Grant: true, Why: "server: the receipts"},
		{Path: env.TempDir, Access: readRights | writeRights,
			Why: "server: the workers' temporary directories"},
		{Path: "/proc", Access: readRights,
			Why: "server: a worker reads its own /proc/self before it holds itself"},
	}
	if env.Cgroups != "" && o.MaxMemoryMB > 0 {
		own = append(own, rule{Path: env.Cgroups, Access: readRights | writeRights,
			Why: "server: each worker's memory cgroup"})
	}
	if o.Tenants != "" {
		own = append(own, rule{Path: filepath.Dir(o.Tenants), Access: readRights,
			Why: "server: the tenants file, read again on SIGHUP"})
	}
	if linux.Brokered(pol) {
		for _, f := range linux.ResolverFiles {
			own = append(own, rule{Path: f, Access: linux.LandlockFSReadFile,
				Why: "server: the broker looks names up for its workers"})
		}
	}
	if env.Loader != "" {
		own = append(own, rule{Path: env.Loader,
			Access: linux.LandlockFSExecute | linux.LandlockFSReadFile,
			Why:    "server: the executable's loader"})
		for _, dir := range serverLibraries {
			own = append(own,
				rule{Path: dir, Access: readRights, Why: "server: the executable's shared libraries"})
		}
	}
	for _, r := range own {
		if !filepath.IsAbs(r.Path) {
			return serverDomain{}, fmt.Errorf("derive the server's domain: %s: %q is not an absolute path",
				r.Why, r.Path)
		}
		if r.Access &= d.HandledFS; r.Access != 0 {
			d.Rules = append(d.Rules, r)
		}
	}
	return d, nil
}

// brokerPorts returns the TCP ports a door's broker connects to for
// workers held to n, and whether it connects to those alone: under a
// closed network, none; where every TCP grant names its port, those and
// 53; otherwise (a grant of any port, or of any host) it may connect to
// any.
func brokerPorts(n core.Network) ([]int, bool) {
	switch n.Mode {
	case core.NetClosed:
		return nil, true
	case core.NetHosts:
	default:
		return nil, false
	}
	set := map[int]bool{53: true}
	for _, h := range n.Hosts {
		if h.Port == 0 {
			return nil, false
		}
		set[h.Port] = true
	}
	ports := slices.Sorted(maps.Keys(set))
	return ports, true
}

// describe is the one line a door prints of its domain at start.
func (d serverDomain) describe() string {
	var reads, writes []string
	for _, r := range d.Rules {
		switch {
		case r.Access&(linux.LandlockFSMakeReg|linux.LandlockFSWriteFile) != 0:
			if !slices.Contains(writes, r.Path) {
				writes = append(writes, r.Path)
			}
		case r.Access&linux.LandlockFSReadFile != 0:
			if !slices.Contains(reads, r.Path) {
				reads = append(reads, r.Path)
			}
		}
	}
	s := "reads " + list(reads, d.HandledFS&linux.LandlockFSReadFile == 0) +
		"; writes " + list(writes, d.HandledFS&linux.LandlockFSWriteFile == 0)
	switch {
	case d.HandledNet == 0: // a kernel below the ABI of TCP: the door's TCP is held nowhere
		s += "; connects anywhere: Landlock holds no TCP below " + linux.ABIText(linux.LandlockABITCP)
	case d.HandledNet&linux.LandlockNetConnectTCP == 0:
		s += "; connects anywhere its workers may"
	case len(d.ConnectTCP) == 0:
		s += "; connects nowhere"
	default:
		s += fmt.Sprintf("; connects to TCP ports %v only", d.ConnectTCP)
	}
	return s
}

func list(paths []string, anywhere bool) string {
	if anywhere {
		return "anywhere (the budget grants it)"
	}
	if len(paths) == 0 {
		return "nothing"
	}
	return strings.Join(paths, ", ")
}

// enterNodev re-executes a door, before it starts anything, in a mount
// namespace where every mount outside /dev is nodev
// (confine.EnterNodevNamespace): its workers, started there, need no
// namespace of their own, which the door could not make once it holds
// itself. Where that cannot be done the door goes on, and says what its
// workers then hold.
func enterNodev(stderr io.Writer, name string) {
	if err := confine.EnterNodevNamespace(); err != nil && !errors.Is(err, core.ErrUnsupported) {
		fmt.Fprintf(stderr, "sabline %s: %s: %s\n", name, codes.TerminalSafe(err.Error()), nodevFallback)
	}
}

// nodevFallback says what a door's workers hold where the door could not
// be re-executed in a nodev namespace.
const nodevFallback = "a worker started before the server holds itself gets a namespace of " +
	"its own where the server can make one (it needs CAP_SYS_ADMIN); any other's device nodes " +
	"beneath a grant are refused by the language alone, and its level says so"

// holdServer holds a door's process to the domain serverRules derives,
// after its pool is started and its listener bound, and returns the line
// to print. A system where that cannot be done gives a line saying so:
// the door runs, and its operator knows.
func holdServer(o doorOptions) string {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fmt.Sprintf("%v: find its executable: %v", errServerNotConfined, err)
	}
	abi := confine.Probe().LandlockABI
	if abi < 1 {
		return fmt.Sprintf("%v: this kernel offers no Landlock", errServerNotConfined)
	}
	runs, err := run.RunsDir()
	if err != nil {
		return fmt.Sprintf("%v: the runs' directory: %v", errServerNotConfined, err)
	}
	env := serverEnv{Exe: exe, TempDir: runs, Loader: loaderOf(exe), Cgroups: confine.WorkerCgroups()}
	d, err := serverRules(o, env, abi)
	if err != nil {
		return fmt.Sprintf("%v: %v", errServerNotConfined, err)
	}
	if d.Skip != "" {
		return fmt.Sprintf("%v: %s", errServerNotConfined, d.Skip)
	}
	held, err := confineServer(d)
	if err != nil {
		return err.Error()
	}
	return "the server process is held (" + held + "): it " + d.describe()
}

// loaderOf is the program interpreter exe names, "" for a static
// executable or one that is not ELF.
func loaderOf(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(p.Open(), 4096))
		if err != nil {
			return ""
		}
		return strings.TrimRight(string(data), "\x00")
	}
	return ""
}
