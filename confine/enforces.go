package confine

import (
	"strconv"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/confine/seccomp"
)

// Holds says how much of a budget item's limits an operating system's
// layers hold, under the language's own checks.
type Holds string

// The answers a Cell gives.
const (
	// HoldsYes: the kernel holds every limit the item sets. An item that
	// sets none in the direction it grants (fs with no path) holds
	// trivially.
	HoldsYes Holds = "yes"
	// HoldsPartly: the kernel holds some of the item's limits; the cell's
	// text says which.
	HoldsPartly Holds = "partly"
	// HoldsNo: the kernel holds none of them; the language alone does.
	HoldsNo Holds = "no"
)

// The fault-injection operations a Row names: the worker itself reads a
// path outside the budget, writes one, connects to a loopback listener,
// starts /bin/true, or signals a process the check started.
const (
	OpRead    = "read"
	OpWrite   = "write"
	OpConnect = "connect"
	OpExec    = "exec"
	OpSignal  = "signal"
)

// PlaceholderGrant stands, in a Row's Budget, for a scratch directory the
// check makes before the run.
const PlaceholderGrant = "$GRANT"

// Cell is what one system holds of one budget item.
type Cell struct {
	Holds Holds
	Text  string
	// Layers are the layers the cell relies on, named as in level.go
	// (Landlock as LayerLandlockFamily), in the order a Result lists them.
	// Empty when the cell holds no, and when what holds the item is no
	// confinement layer (the supervisor's clock, the worker's own check).
	Layers []string
}

// Row is one line of the ENFORCES table: a budget item, or something
// every confined run holds, and what each system of Systems holds of it.
type Row struct {
	ID   string // stable, for checks and messages: "fs-read-dir"
	Item string // the first column: "fs:read:DIR"
	// Cells are what each system holds of the item, one for every system
	// of Systems (TestEnforcesCells holds the table to that).
	Cells map[System]Cell
	// Ops are the fault-injection operations that test the row: each,
	// attempted outside Budget, is refused by the kernel where the cell
	// holds yes and goes through where it holds no. A cell that holds
	// partly is asserted neither way: its text says where the line falls.
	// Empty when no operation can test the row.
	Ops []string
	// Budget is the --allow text the ops run under, with PlaceholderGrant
	// for the check's scratch directory; "" when Ops is empty.
	Budget string
	// PartlyOps says, for a system whose cell holds partly, what the
	// row's operations meet there when they test the part of the item
	// that is held: HoldsYes. A system it does not name is asserted
	// neither way.
	PartlyOps map[System]Holds
	// OpsLandlockABI is the Landlock ABI the row's operations need on
	// Linux to be refused as the cell (or PartlyOps) says; 0 for any. It
	// is read from linux.LandlockABIs, never written as a number.
	OpsLandlockABI int
}

// OpsHold is what the row's operations meet on sys: the cell's Holds, or
// for a cell that holds partly, PartlyOps's answer (HoldsPartly when it
// has none).
func (r Row) OpsHold(sys System) Holds {
	c, _ := r.Cell(sys)
	if h, ok := r.PartlyOps[sys]; ok && c.Holds == HoldsPartly {
		return h
	}
	return c.Holds
}

// Cell returns the row's cell for sys, and false for a system the row has
// no cell for. A GOOS name (runtime.GOOS, a name read from a document) is
// converted, or looked up with SystemOf.
func (r Row) Cell(sys System) (Cell, bool) {
	c, ok := r.Cells[sys]
	return c, ok
}

// EnforcesRow returns the row of Enforces with the given ID.
func EnforcesRow(id string) (Row, bool) {
	for _, r := range Enforces() {
		if r.ID == id {
			return r, true
		}
	}
	return Row{}, false
}

// Enforces is the ENFORCES table: for each budget item, and for what every
// confined run holds whatever its budget, how much each system of Systems
// holds. Cells describe the layers this package applies: on Linux
// Landlock and seccomp in the worker, on macOS a sandbox profile, on
// Windows a job object, a token stripped of its privileges, an integrity
// level and the AppContainer the supervisor starts the worker in (the
// container is left off for the budgets and systems WindowsPlanFor names;
// a run then holds what the job object and the token hold). Every cell is
// about the worker, from its first statement on: the program and its
// imports are compiled before the policy is applied.
// docs/os-enforces.md is generated from it. It is built on each call: a
// run never reads it (sabline audit, os-policy --enforces and the docs
// do), and no caller can change what another reads.
func Enforces() []Row { return enforcesTable() }

// handedText says what the worker may not do with sockets under any net
// grant on Linux, where its supervisor makes its connections.
var handedText = "seccomp refuses socket, socketpair, connect, bind, listen, accept, sendto, sendmsg, " +
	"sendmmsg and setsockopt (EPERM), and from Landlock " + linux.ABIText(linux.LandlockABITCP) +
	" every TCP connect and bind is refused too, to a granted port as to any other"

// truncateABI is the first Landlock ABI that holds truncation, and
// truncateBelow what holds it on a kernel below it.
var (
	truncateABI   = linux.ABIText(linux.LandlockABITruncate())
	truncateBelow = "the seccomp filter refuses truncate(2) and an open with O_TRUNC not to write " +
		"(to read, or for no access), which the kernel there checks against no rule"
)

// enforcesTable builds the ENFORCES table anew.
func enforcesTable() []Row {
	return []Row{
		{
			ID:   "no-fs",
			Item: "no fs granted",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "Landlock: nothing is read, written, made or removed but what the " +
					"interpreter itself needs (below), and no file is executed or truncated (below " +
					truncateABI + ", " + truncateBelow + "). A file's metadata is held only " +
					"in part: Landlock (to " + linux.ABIText(linux.LandlockMaxABI) + ") has no right for stat " +
					"or readlink, and the filter allows newfstatat, fstat and readlinkat (it refuses access and " +
					"every extended-attribute call), so whether a file outside the grants exists, its type, " +
					"size, mode, owner and times, and a symbolic link's target can still be learned",
					[]string{core.LayerLandlockFamily}},
				Darwin: Cell{HoldsPartly, "writes refused everywhere but the private temporary directory and " +
					"/dev/null; reads refused only under the home directory and /Volumes, where the directories " +
					"on the way to the working directory may still be looked up (stat, not read)",
					[]string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsYes, "AppContainer: the container has an ACE for nothing but what the " +
					"interpreter itself needs, so a read or a write of anything of the user's is refused; where " +
					"the container is left off, the low integrity level still refuses a write to anything of " +
					"the user's but what is labelled low integrity (AppData\\LocalLow is), and reads are not " +
					"held", []string{core.LayerLowIntegrity,
					core.LayerAppContainer}},
			},
			Ops:    []string{OpRead, OpWrite},
			Budget: "io",
		},
		{
			ID:   "fs-read-dir",
			Item: "fs:read:DIR",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "Landlock: reads beneath DIR, as it resolves when the policy is " +
					"applied, and nothing else of the user's; when DIR does not exist yet, reads beneath the " +
					"nearest directory above it that does, and the level is partial. As under no fs granted, a " +
					"file's metadata outside DIR is not held; nothing is truncated (below " + truncateABI +
					", " + truncateBelow + ")",
					[]string{core.LayerLandlockFamily}},
				Darwin: Cell{HoldsPartly, "reads beneath DIR allowed; outside it, refused only under the " +
					"home directory and /Volumes", []string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsYes, "AppContainer: one ACE for DIR, as it resolves, carrying read; a " +
					"read of anything else of the user's is refused; where the container is left off, not held",
					[]string{core.LayerAppContainer}},
			},
			Ops:    []string{OpRead},
			Budget: "io,fs:read:" + PlaceholderGrant,
		},
		{
			ID:   "fs-write-dir",
			Item: "fs:write:DIR",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "Landlock: files written, made, removed and truncated " +
					"beneath DIR and nowhere else (below " + truncateABI + ", " + truncateBelow +
					", and a file beneath DIR is truncated by opening it to write); the " +
					"grant gives no read, as in the language, and a file is not renamed or linked from one " +
					"directory into another (EXDEV); when DIR does not exist yet, the supervisor makes it " +
					"before the worker starts if its parent exists (the receipt's observed made says " +
					"so); otherwise beneath the nearest directory above it that does, and the level is " +
					"partial", []string{core.LayerLandlockFamily}},
				Darwin: Cell{HoldsPartly, "writes beneath DIR allowed, and refused everywhere else but the " +
					"private temporary directory and /dev/null; a read back beneath DIR, which the grant does " +
					"not give, is refused only under the home directory and /Volumes",
					[]string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsPartly, "AppContainer: an ACE for DIR carrying read, write and delete, " +
					"so a read back beneath DIR, which the grant does not give, is held by the language " +
					"alone and the level is partial; the integrity level stays medium, since the ACE is what " +
					"holds the write; where the container is left off, not held",
					[]string{core.LayerAppContainer}},
			},
			Ops:    []string{OpWrite},
			Budget: "io,fs:write:" + PlaceholderGrant,
		},
		{
			ID:   "fs-any",
			Item: "fs, fs:read, fs:write with no path",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "Landlock: every path in that direction but the guarded locations " +
					"(next row), as the budget says", []string{core.LayerLandlockFamily}},
				Darwin: Cell{HoldsYes, "that direction is not restricted, as the budget says; the guarded " +
					"locations are the language's only (next row)", nil},
				Windows: Cell{HoldsYes, "fs leaves the container off, since a container reaches only what it " +
					"has an ACE for, and then neither direction is restricted; under fs:read or fs:write alone " +
					"the container stays, and refuses that direction beyond its ACEs, more than the budget asks",
					nil},
			},
		},
		{
			ID: "credential",
			Item: "a guarded location under a broad grant (E318): a credential location, a dot-entry of a " +
				"home, the receipts and tokens of every Sabline on the machine, a kernel file system " +
				"wherever it is mounted, a device",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "Landlock: a grant above one is held as the entries beside the way " +
					"down to it, the location never among them, whatever opens the file (a host module, raw " +
					"calls under --confine strict): its files are neither read, written nor made " +
					"(EACCES), nor truncated (below " + truncateABI + ", " + truncateBelow + "). " +
					"Every home is held so, its dot-entries left out, and so is the directory a guarded " +
					"location that is not there yet would be made in: no entry can be made in them during the " +
					"run. A directory on the way keeps only the right to be listed, which Landlock hands on, so " +
					"the names in a guarded directory beneath a read grant may be listed, as the language " +
					"refuses a new entry there too. Past " +
					strconv.Itoa(linux.MaxCarvedRules) + " rules, or where a directory cannot be listed, the " +
					"location is the language's only and the level is partial. Neither layer holds a " +
					"guarded file that a hard link or a bind mount made before the run puts inside a grant, " +
					"nor a Sabline's receipts, token or runs directory made after the run started in a " +
					"directory the run may write (the register is read when a run starts)",
					[]string{core.LayerLandlockFamily}},
				Darwin: Cell{HoldsNo, "not held: the language alone refuses it", nil},
				Windows: Cell{HoldsNo, "not held: an ACE on a directory reaches everything beneath it, so a " +
					"run whose container's ACEs reach a guarded location is partial, and its reason names it", nil},
			},
		},
		{
			ID:   "no-net",
			Item: "no net granted",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "seccomp: socket, socketpair, connect, bind, listen, accept and " +
					"accept4 refused (EPERM); from Landlock " + linux.ABIText(linux.LandlockABITCP) + ", TCP " +
					"bind and connect are refused too",
					[]string{core.LayerLandlockFamily, core.LayerSeccomp}},
				Darwin: Cell{HoldsYes, "the profile denies every network operation (network*)",
					[]string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsYes, "AppContainer: the container has no capability, so a connection to " +
					"another machine or to the loopback address is refused (WSAEACCES); where the container is " +
					"left off, not held",
					[]string{core.LayerAppContainer}},
			},
			Ops:    []string{OpConnect},
			Budget: "io",
		},
		{
			ID:   "net-host",
			Item: "net:HOST, net:HOST:PORT",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "the worker makes no connection of its own: " + handedText +
					". Its supervisor makes each one the budget grants, counted with the grant's @N: it " +
					"looks the granted name up itself and connects only to a public address of it " +
					"(loopback only for localhost, the address itself where the grant names one), so a " +
					"name that answers with an address inside the operator's network (a rebinding) is " +
					"refused (E335), and hands the connected socket in over a Unix socket the two share. TCP " +
					"only, as a net grant is unless it says udp", []string{core.LayerLandlockFamily,
					core.LayerSeccomp}},
				Darwin: Cell{HoldsNo, "not held: no broker on this system, the profile leaves the network " +
					"open, UDP too, and the host is held by the language alone", nil},
				Windows: Cell{HoldsPartly, "AppContainer: the container has internetClient, which admits " +
					"every host, over UDP as over TCP, so the host, and UDP, are held by the language alone; " +
					"the loopback address stays refused. A loopback host granted (localhost, 127.0.0.0/8, ::1) " +
					"leaves the container off, and then the network is not held",
					[]string{core.LayerAppContainer}},
			},
			Ops:    []string{OpConnect},
			Budget: "io,net:example.org:443",
			// The hook connects to a loopback port the budget does not name,
			// on a socket of the worker's own: seccomp refuses the socket on
			// Linux (Landlock the connect), and the container keeps a
			// contained process from the loopback address on Windows.
			PartlyOps: map[System]Holds{Windows: HoldsYes},
		},
		{
			ID:   "net-any",
			Item: "net with no host",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "TCP to any host, as the budget says, each connection made by the " +
					"supervisor and handed in; the worker makes none of its own: " + handedText +
					" (no UDP without a UDP grant, no Unix, netlink, raw or packet socket): a run listens " +
					"on no port", []string{core.LayerLandlockFamily, core.LayerSeccomp}},
				Darwin: Cell{HoldsNo,
					"not held: the profile leaves the network open, UDP and a Unix socket with it", nil},
				Windows: Cell{HoldsPartly, "AppContainer: the container has internetClient, which admits " +
					"every host, over UDP as over TCP, so UDP is held by the language alone; the loopback " +
					"address stays refused unless a loopback host is granted too, which leaves the container off",
					[]string{core.LayerAppContainer}},
			},
		},
		{
			ID:   "net-udp",
			Item: "net:udp, net:udp:HOST, net:udp:HOST:PORT",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "the supervisor makes each datagram socket a UDP grant admits, " +
					"counted with the grant's @N and connected to the host and port the program named (a " +
					"granted name to its public addresses, as for net:HOST), and hands it in: the worker " +
					"sends on it to that peer only, since seccomp refuses connect, sendto, sendmsg and " +
					"sendmmsg, which would point it elsewhere, and it makes no socket and binds no port of " +
					"its own, so it shares no port another process receives on",
					[]string{core.LayerSeccomp}},
				Darwin: Cell{HoldsNo, "not held: no broker on this system, the profile leaves the network " +
					"open, and the host and port are held by the language alone", nil},
				Windows: Cell{HoldsPartly, "as net:HOST: the container admits every host over UDP, and the " +
					"loopback address stays refused unless a loopback host is granted, which leaves the " +
					"container off; the host and port are held by the language alone",
					[]string{core.LayerAppContainer}},
			},
		},
		{
			ID:   "counts",
			Item: "@N counts",
			Cells: map[System]Cell{
				Linux: Cell{HoldsNo, "the language: no kernel counts uses. The supervisor counts a net " +
					"grant's connections itself, against the grant's @N, as it makes each one", nil},
				Darwin:  Cell{HoldsNo, "the language", nil},
				Windows: Cell{HoldsNo, "the language", nil},
			},
		},
		{
			ID:   "io",
			Item: "io",
			Cells: map[System]Cell{
				Linux: Cell{HoldsNo, "not held: the descriptors the worker was started with stay open to " +
					"it, with or without io", nil},
				Darwin:  Cell{HoldsNo, "as Linux", nil},
				Windows: Cell{HoldsNo, "as Linux", nil},
			},
		},
		{
			ID:   "env",
			Item: "env",
			Cells: map[System]Cell{
				Linux: Cell{HoldsNo, "not held by the kernel, which cannot hold memory the worker already " +
					"has: held by the supervisor instead, which starts a worker without env with an environment " +
					"of its own making (PATH, TZ, where the TLS roots are, and the Go runtime's settings), so a " +
					"program that gets past the language finds none of the operator's variables in the " +
					"worker's memory (a granted module that turns the layers off reads its supervisor's in " +
					"/proc/PID/environ, as any process of the user may: THREAT_MODEL.md); with env, the " +
					"operator's whole environment is in the worker", nil},
				Darwin: Cell{HoldsNo,
					"not held by the kernel; the supervisor's environment of its own making, as Linux", nil},
				Windows: Cell{HoldsNo,
					"not held by the kernel; the supervisor's environment of its own making, as Linux", nil},
			},
		},
		{
			ID:   "clock-rand-declassify",
			Item: "clock, rand, declassify",
			Cells: map[System]Cell{
				Linux: Cell{HoldsNo, "not held: reading the clock or the kernel's random numbers reaches " +
					"nothing outside the worker, and declassify is a rule of the language", nil},
				Darwin:  Cell{HoldsNo, "not held", nil},
				Windows: Cell{HoldsNo, "not held", nil},
			},
		},
		{
			ID:   "tool",
			Item: "tool",
			Cells: map[System]Cell{
				Linux: Cell{HoldsNo, "not held: a tool call is a line the worker writes to its standard " +
					"output and an answer it reads from its standard input; what the tool does happens outside " +
					"the worker, which this policy does not reach", nil},
				Darwin:  Cell{HoldsNo, "not held", nil},
				Windows: Cell{HoldsNo, "not held", nil},
			},
		},
		{
			ID:   "process-start",
			Item: "starting a process (never a budget item)",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "seccomp: execve, execveat, fork and vfork are not on the allow-list, " +
					"and clone is allowed only to make a thread (CLONE_THREAD, sharing the worker's " +
					"descriptors: CLONE_FILES, and no flag a thread is not made with); clone3 answered " +
					"ENOSYS, so the Go runtime makes its threads with clone; Landlock " +
					"refuses executing any file", []string{core.LayerLandlockFamily, core.LayerSeccomp}},
				Darwin: Cell{HoldsYes, "the profile denies process-fork and process-exec",
					[]string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsYes, "job object: one active process, the worker itself",
					[]string{core.LayerJobObject}},
			},
			Ops:    []string{OpExec},
			Budget: "io",
		},
		{
			ID:   "deny-list",
			Item: "every other system call (never a budget item)",
			Cells: map[System]Cell{
				// Generated from the filter's rules table, whose groups say what
				// the worker may do; everything else is refused.
				Linux: Cell{HoldsYes, seccomp.SummaryText + ". From Landlock " +
					linux.ABIText(linux.LandlockABIScopes()) + ", signals are scoped to the worker too",
					[]string{core.LayerLandlockFamily, core.LayerSeccomp}},
				Darwin: Cell{HoldsPartly, "what the denial of process-fork and of writes implies; a profile " +
					"has no list of system calls, and a signal to another process of the same user is not refused",
					[]string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsPartly, "every privilege but SeChangeNotifyPrivilege removed from the " +
					"token; the job object keeps the worker from the clipboard, the desktop, global atoms, " +
					"other processes' USER handles, system parameters, display settings and logging off; no " +
					"list of system calls", []string{core.LayerJobObject, core.LayerTokenPrivs}},
			},
			Ops:    []string{OpSignal},
			Budget: "io",
		},
		{
			ID:   "ffi-module",
			Item: "ffi:MODULE",
			Cells: map[System]Cell{
				Linux: Cell{HoldsPartly, "widened to what the widening table (below) names for MODULE: " +
					"nothing, any path, any host, any path and any host, or nothing enforced; plain ffi and a " +
					"module the table does not name widen to nothing enforced, and the level is none. A host " +
					"module is Go code in the worker's own process, held as far as the widened policy holds: a " +
					"widening to any path is held as fs with no path is, every path but the guarded locations; " +
					"a widening to any host is held as net with no host is: the supervisor makes each TCP " +
					"connection the module asks for, to any host, and hands it in, and the worker makes no " +
					"socket of its own, so a UDP or Unix socket stays refused, and no port is bound",
					[]string{core.LayerLandlockFamily, core.LayerSeccomp}},
				Darwin: Cell{HoldsPartly, "as Linux", []string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsPartly, "as Linux", []string{core.LayerJobObject, core.LayerTokenPrivs,
					core.LayerLowIntegrity, core.LayerAppContainer}},
			},
		},
		{
			ID:   "ffi-strict",
			Item: "ffi:MODULE under --confine strict",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "widened to nothing: the policy is the budget's fs and net grants and " +
					"what the interpreter itself needs, whatever modules are granted, and the rows above hold a " +
					"host module's calls as they hold the interpreter's; a module that needs a path or a host " +
					"needs it in the budget",
					[]string{core.LayerLandlockFamily, core.LayerSeccomp}},
				Darwin: Cell{HoldsPartly, "as Linux, within the profile's limits: writes, a closed network " +
					"and processes held; reads only under the home directory and /Volumes",
					[]string{core.LayerSandboxProfile}},
				Windows: Cell{HoldsYes, "as Linux: the container holds a host module's calls as it holds the " +
					"interpreter's; where it is left off, the rows above say what is held",
					[]string{core.LayerJobObject, core.LayerAppContainer}},
			},
		},
		{
			ID:   "require-confinement",
			Item: "--require-confinement full, partial or none (never a budget item)",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "a run whose level, once the policy is applied, is below the one asked " +
					"for is refused before its first statement, and its receipt records the level it got. " +
					"Where none is asked, the level asked is the one this machine holds the budget at, its " +
					"granted paths as they are when the worker starts and the limits the language alone " +
					"holds aside (device nodes no nodev mount holds, a guarded location beneath a grant " +
					"too large to carve), with each layer that holds it there: a layer the kernel offers " +
					"that fails to install (a Landlock ruleset the kernel refuses) refuses the run, where " +
					"that level is partial too; none asks for no level", nil},
				Darwin: Cell{HoldsYes, "as Linux, but where none is asked no level is: the level here is " +
					"a plan no run has been checked against. Every run is partial here at best, since " +
					"Apple has deprecated sandbox profiles, so full refuses every run", nil},
				Windows: Cell{HoldsYes, "as Linux, but where none is asked no level is: the level here is " +
					"a plan no run has been checked against. A budget that restricts reads, writes or the " +
					"network is full only inside the container, so full refuses a run whose container is " +
					"left off", nil},
			},
		},
		{
			ID:   "limits",
			Item: "time and memory limits",
			Cells: map[System]Cell{
				Linux: Cell{HoldsYes, "the supervisor ends the worker at its deadline; the worker's address " +
					"space is limited (RLIMIT_AS) before its program is compiled, with or without confinement " +
					"(a resource limit, not a layer), under the Go runtime's soft limit and the worker's own " +
					"watch of its resident memory, a raw mapping's included, which ends the run first " +
					"(run_memlimit.txtar), and the supervisor's reads of that memory from outside, which " +
					"end a run whose one long operation keeps the worker's watch from running " +
					"(TestMemoryHeldFromOutside); " +
					"where the supervisor may make " +
					"one, a cgroup v2 of the worker's own holds memory.max as well, and the run's reason says " +
					"which hold it", nil},
				Darwin: Cell{HoldsPartly, "the supervisor's deadline; the address-space limit is set, and " +
					"macOS holds it on a best-effort basis", nil},
				Windows: Cell{HoldsYes, "the job object's memory limit, and the supervisor's deadline",
					[]string{core.LayerJobObject}},
			},
		},
	}
}
