package linux

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sabline/sabline/confine/core"
)

// Landlock file system access rights, numbered as <linux/landlock.h>
// numbers LANDLOCK_ACCESS_FS_*. They are defined here, not taken from
// golang.org/x/sys/unix, so that plans are built and tested on every
// system; the Linux tests check them against x/sys/unix.
const (
	LandlockFSExecute    uint64 = 1 << 0  // execute a file (ABI 1)
	LandlockFSWriteFile  uint64 = 1 << 1  // open a file for writing (ABI 1)
	LandlockFSReadFile   uint64 = 1 << 2  // open a file for reading (ABI 1)
	LandlockFSReadDir    uint64 = 1 << 3  // open or list a directory (ABI 1)
	LandlockFSRemoveDir  uint64 = 1 << 4  // remove or rename an empty directory (ABI 1)
	LandlockFSRemoveFile uint64 = 1 << 5  // unlink or rename a file (ABI 1)
	landlockFSMakeChar   uint64 = 1 << 6  // create a character device (ABI 1)
	LandlockFSMakeDir    uint64 = 1 << 7  // create a directory (ABI 1)
	LandlockFSMakeReg    uint64 = 1 << 8  // create a regular file (ABI 1)
	landlockFSMakeSock   uint64 = 1 << 9  // create a unix socket (ABI 1)
	landlockFSMakeFifo   uint64 = 1 << 10 // create a named pipe (ABI 1)
	landlockFSMakeBlock  uint64 = 1 << 11 // create a block device (ABI 1)
	landlockFSMakeSym    uint64 = 1 << 12 // create a symbolic link (ABI 1)
	landlockFSRefer      uint64 = 1 << 13 // link or rename a file into another directory (ABI 2)
	LandlockFSTruncate   uint64 = 1 << 14 // truncate a file (ABI 3)
	landlockFSIoctlDev   uint64 = 1 << 15 // ioctl on a device file (ABI 5)
)

// Landlock network access rights, numbered as LANDLOCK_ACCESS_NET_*
// (ABI 4).
const (
	LandlockNetBindTCP    uint64 = 1 << 0 // bind a TCP socket to a port
	LandlockNetConnectTCP uint64 = 1 << 1 // connect a TCP socket to a port
)

// Landlock scopes, numbered as LANDLOCK_SCOPE_* (ABI 6). A scoped
// operation may not reach a process outside the run's Landlock domain.
const (
	LandlockScopeAbstractUnixSocket uint64 = 1 << 0 // connect to an abstract unix socket
	LandlockScopeSignal             uint64 = 1 << 1 // send a signal
)

// LandlockMaxABI is the highest Landlock ABI Sabline plans for. A kernel
// with a higher ABI is planned for at this one: ABI 8 and later add thread
// synchronisation and rights this code does not hand out, so the ruleset
// restricts what ABI 7 can.
const LandlockMaxABI = 7

// landlockFileRights are the rights a rule on a file, not a directory,
// may carry; the kernel refuses a directory right on a file.
const landlockFileRights = LandlockFSExecute | LandlockFSWriteFile | LandlockFSReadFile |
	LandlockFSTruncate | landlockFSIoctlDev

// landlockReadRights are the read rights a ruleset handles when reads are
// restricted, and what a granted read path gets. Execute is not among
// them: it is handled always and granted nowhere, as a confined run starts
// no process.
const landlockReadRights = LandlockFSReadFile | LandlockFSReadDir

// landlockFSRights returns every file system right the kernel knows at
// abi, from landlockABIs.
func landlockFSRights(abi int) uint64 { return LandlockABIOf(abi).FS }

// landlockWriteRights returns every write right the kernel knows at abi:
// all but execute and the two read rights.
func landlockWriteRights(abi int) uint64 {
	return landlockFSRights(abi) &^ (LandlockFSExecute | landlockReadRights)
}

// landlockEverywhereWrite returns what the rule on / of a policy whose
// writes are unrestricted gets at abi: what a granted write path gets, and
// making sockets, named pipes and symbolic links, which a widening module
// may do. Never a device (the dropped capabilities refuse it too), an
// ioctl on one, or a link or rename into another directory (refer): that
// last one a module does by copying, as in a granted directory.
func landlockEverywhereWrite(abi int) uint64 {
	return landlockWriteGrant(abi) |
		landlockFSRights(abi)&(landlockFSMakeSock|landlockFSMakeFifo|landlockFSMakeSym)
}

// landlockWriteGrant returns what a granted write path gets at abi: the
// rights to create, write, truncate and remove files and directories,
// which is all the language does with a write grant. Devices, sockets,
// pipes and links may not be made (root could make a disk's device node
// and write to it). Without refer, the kernel refuses to rename or link a
// file into another directory with EXDEV, even within one grant, and a
// program copies instead.
func landlockWriteGrant(abi int) uint64 {
	return landlockFSRights(abi) & (LandlockFSWriteFile | LandlockFSTruncate |
		LandlockFSMakeReg | LandlockFSMakeDir | LandlockFSRemoveFile | LandlockFSRemoveDir)
}

// LandlockRule lets a path beneath Path be accessed with Access.
type LandlockRule struct {
	Path   string
	Access uint64 // LandlockFS* rights, within the plan's HandledFS
	// Grant is true for a path the budget grants, false for one of the
	// interpreter's own needs. ApplyLandlock holds a granted path that
	// does not exist yet beneath its nearest existing parent, and skips
	// a need that does not exist.
	Grant bool
	Why   string // "read grant", "write grant" or "interpreter: NEED"
	// Carved is true for a rule CarveLandlock made, on an entry it
	// listed: ApplyLandlock holds it on that entry as it is then, never
	// through a link put in its place, and not at all once it is gone.
	Carved bool
	// Image is true for the interpreter's executable: ApplyLandlock holds
	// it only where its path names the file the process runs, and leaves
	// it out where the path names anything else since (a directory or a
	// link put in the image's place, whose rule would reach what they hold).
	Image bool
	// Covered is true for a grant another grant's rule covers
	// (core.Direction.Named): a rule of its own only where its path
	// exists, since the rule above holds where it would be made.
	Covered bool
	// Operator is true for a path the operator's environment names
	// (core.NeedPath.Operator): withheld, as a grant is, where no grant
	// may reach and where it is no entry of a data file system; skipped,
	// as a need is, where it does not exist.
	Operator bool
}

// LandlockRuleset is the Landlock plan for a policy at one ABI: what the
// ruleset handles, and the rules that allow some of it back. What an ABI
// cannot hold of a policy, Assess says.
//
// Rights a ruleset handles are refused everywhere but beneath its rules.
// A granted write path is write-only in the kernel, as it is in the
// language: a program cannot read back, or list, what it may write.
//
// Landlock holds TCP only: UDP, raw sockets, unix sockets by path and
// Multipath TCP are never held by it, whatever the network grants, and
// are left to the seccomp layer.
type LandlockRuleset struct {
	ABI        int            // the ABI planned for, 1 to LandlockMaxABI
	HandledFS  uint64         // LandlockFS* rights the ruleset restricts
	Rules      []LandlockRule // paths where some of HandledFS is allowed
	HandledNet uint64         // LandlockNet* rights restricted; 0 below ABI 4
	ConnectTCP []int          // ports a TCP connection may go to
	Scoped     uint64         // LandlockScope* scopes restricted; 0 below ABI 6
}

// LandlockPlan plans the Landlock ruleset that holds p at the kernel's
// abi, with the interpreter's needs resolved through n. A kernel ABI above
// LandlockMaxABI is planned for as LandlockMaxABI.
//
// Both directions of file access are handled in full: reads as
// read-file and read-dir, writes as every write right of the ABI.
// Execute is handled always and allowed nowhere. Granted read paths get
// read-file and read-dir; granted write paths may create, write, truncate
// and remove files and directories. A direction the policy leaves
// unrestricted is a rule on / (its reads, or every write right but making
// a device), so that CarveLandlock can hold the guarded locations out of
// it. The network is handled from
// ABI 4: bind always, and allowed on no port, as a run listens on none
// (the language has no listen, and a module that widens the policy to any
// host only dials); connect when the network is closed or the policy's
// ports restrict it. From ABI 6 signals and abstract unix sockets may not
// reach out of the run.
//
// It fails when p enforces nothing, when abi is below 1, or when a path it
// would hold is not absolute.
func LandlockPlan(p core.Policy, n core.Needs, abi int) (LandlockRuleset, error) {
	if !p.Enforced {
		return LandlockRuleset{}, errors.New("landlock plan: the policy enforces nothing")
	}
	if abi < 1 {
		return LandlockRuleset{}, fmt.Errorf("landlock plan: ABI %d: Landlock ABIs start at 1", abi)
	}
	abi = min(abi, LandlockMaxABI)
	plan := LandlockRuleset{ABI: abi,
		HandledFS: LandlockFSExecute | landlockReadRights | landlockWriteRights(abi)}

	add := func(r LandlockRule) error {
		if !strings.HasPrefix(r.Path, "/") {
			return fmt.Errorf("landlock plan: %q (%s) is not an absolute path", r.Path, r.Why)
		}
		if r.Access &= plan.HandledFS; r.Access != 0 {
			plan.Rules = append(plan.Rules, r)
		}
		return nil
	}
	grant := func(path string, access uint64, why string) error {
		return add(LandlockRule{Path: path, Access: access, Grant: true, Why: why})
	}
	covered := func(path string, access uint64, why string) error {
		return add(LandlockRule{Path: path, Access: access, Grant: true, Covered: true, Why: why})
	}
	if p.Read.Unrestricted {
		_ = grant("/", landlockReadRights, "read grant (every path)")
	}
	if p.Write.Unrestricted {
		_ = grant("/", landlockEverywhereWrite(abi), "write grant (every path)")
	}
	for _, path := range p.Read.Paths {
		if err := grant(path, landlockReadRights, "read grant"); err != nil {
			return LandlockRuleset{}, err
		}
	}
	for _, path := range p.Write.Paths {
		if err := grant(path, landlockWriteGrant(abi), "write grant"); err != nil {
			return LandlockRuleset{}, err
		}
	}
	// A grant another covers is a rule of its own: the carving of the one
	// above may hold out what it names (a home's dot-entry).
	for _, path := range p.Read.Named {
		if err := covered(path, landlockReadRights, "read grant (named beneath another)"); err != nil {
			return LandlockRuleset{}, err
		}
	}
	for _, path := range p.Write.Named {
		if err := covered(path, landlockWriteGrant(abi),
			"write grant (named beneath another)"); err != nil {
			return LandlockRuleset{}, err
		}
	}
	for _, np := range core.NeedPaths(p, n) {
		access := landlockReadRights
		if np.Write {
			access |= landlockWriteGrant(abi)
		}
		if np.File {
			access &= landlockFileRights
		}
		r := LandlockRule{Path: np.Path, Access: access, Why: "interpreter: " + np.Need,
			Image: np.Need == core.NeedExecutable, Operator: np.Operator}
		if err := add(r); err != nil {
			return LandlockRuleset{}, err
		}
	}

	// The worker makes no TCP connection or listener of its own: under a
	// net grant its supervisor connects for it (Brokered), so Landlock
	// refuses every TCP bind and connect whatever the network.
	info := LandlockABIOf(abi)
	if info.Net&LandlockNetBindTCP != 0 {
		plan.HandledNet = LandlockNetBindTCP | LandlockNetConnectTCP
	}
	plan.Scoped = info.Scopes & (LandlockScopeAbstractUnixSocket | LandlockScopeSignal)
	return plan, nil
}

var (
	landlockFSNames = []string{"execute", "write_file", "read_file", "read_dir", "remove_dir",
		"remove_file", "make_char", "make_dir", "make_reg", "make_sock", "make_fifo", "make_block",
		"make_sym", "refer", "truncate", "ioctl_dev"}
	landlockNetNames   = []string{"bind_tcp", "connect_tcp"}
	landlockScopeNames = []string{"abstract_unix_socket", "signal"}
)

// LandlockAccessNames names the LandlockFS* rights in mask, lowest bit
// first, as <linux/landlock.h> spells them without the prefix
// (read_file). A bit this code does not know is named bitN.
func LandlockAccessNames(mask uint64) []string { return bitNames(mask, landlockFSNames) }

// LandlockNetNames names the LandlockNet* rights in mask (bind_tcp).
func LandlockNetNames(mask uint64) []string { return bitNames(mask, landlockNetNames) }

// landlockScopeNamesOf names the LandlockScope* scopes in mask (signal).
func landlockScopeNamesOf(mask uint64) []string { return bitNames(mask, landlockScopeNames) }

func bitNames(mask uint64, names []string) []string {
	var out []string
	for i := range 64 {
		switch {
		case mask&(1<<i) == 0:
		case i < len(names):
			out = append(out, names[i])
		default:
			out = append(out, "bit"+strconv.Itoa(i))
		}
	}
	return out
}
