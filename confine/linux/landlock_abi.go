package linux

import (
	"slices"
	"strconv"
)

// LandlockABIInfo is what one Landlock ABI offers, as <linux/landlock.h>
// and the kernel's Landlock documentation give it: every right and scope
// a ruleset may handle at that ABI, not only what it adds.
type LandlockABIInfo struct {
	ABI    int    // 1 to LandlockMaxABI
	Kernel string // the first Linux release that offers it
	FS     uint64 // the LandlockFS* rights a ruleset may handle
	Net    uint64 // the LandlockNet* rights; 0 below ABI 4
	Scopes uint64 // the LandlockScope* scopes; 0 below ABI 6
	// LogFlags are the flags of landlock_restrict_self that set how
	// denials are logged (LANDLOCK_RESTRICT_SELF_LOG_*); 0 below ABI 7.
	// Sabline sets none of them: the kernel's default logging stands.
	LogFlags uint64
	// Adds says in words what the ABI adds to the one below, as
	// `sabline doctor` prints it.
	Adds string
	// Lacking is what Sabline cannot hold on a kernel below this ABI,
	// as the doctor's advice says it, or "" when what the ABI adds is
	// held by another layer (seccomp) or not used.
	Lacking string
}

// landlockTruncateUnheld says what a kernel below the ABI of the truncate
// right leaves open whatever the ruleset handles, where the seccomp
// filter does not refuse it (Held.SeccompTruncate): truncate(2) meets no
// Landlock check, and an open with O_TRUNC only the check of the access it
// opens for (none for O_ACCMODE, an open for no access), so a file a read
// grant reaches is emptied by opening it to read, and any other by opening
// it for no access. Assess says it.
const landlockTruncateUnheld = "any file the worker's user may write may be truncated, by its " +
	"path or opened to be read, whatever the budget grants, the guarded locations among them"

// landlockABI1FS are the thirteen file system rights of ABI 1.
const landlockABI1FS = landlockFSRefer - 1

// landlockABIs is the one table of what each Landlock ABI offers,
// landlockABIs[i] being ABI i+1, to LandlockMaxABI. The plan
// (LandlockPlan), the assessment (Assess), the doctor's advice
// (Machine.Advice) and the ENFORCES cells read it; no other code compares
// an ABI with a number. It follows go-landlock's own table of ABIs.
var landlockABIs = []LandlockABIInfo{
	{ABI: 1, Kernel: "5.13", FS: landlockABI1FS,
		Adds: "file reads, writes, making, removing and executing beneath the granted paths"},
	{ABI: 2, Kernel: "5.19", FS: landlockABI1FS | landlockFSRefer,
		Adds: "the refer right (renaming and linking a file into another directory), which Sabline " +
			"grants nowhere"},
	{ABI: 3, Kernel: "6.2", FS: landlockABI1FS | landlockFSRefer | LandlockFSTruncate,
		Adds: "truncating a file (below it, the seccomp filter refuses truncate(2) and an open " +
			"with O_TRUNC not to write)"},
	{ABI: 4, Kernel: "6.7", FS: landlockABI1FS | landlockFSRefer | LandlockFSTruncate,
		Net:     LandlockNetBindTCP | LandlockNetConnectTCP,
		Adds:    "TCP bind and connect by port",
		Lacking: "TCP binds and connects: a worker's own TCP sockets are held by seccomp alone"},
	{ABI: 5, Kernel: "6.10",
		FS:   landlockABI1FS | landlockFSRefer | LandlockFSTruncate | landlockFSIoctlDev,
		Net:  LandlockNetBindTCP | LandlockNetConnectTCP,
		Adds: "ioctl on device files"},
	{ABI: 6, Kernel: "6.12",
		FS:     landlockABI1FS | landlockFSRefer | LandlockFSTruncate | landlockFSIoctlDev,
		Net:    LandlockNetBindTCP | LandlockNetConnectTCP,
		Scopes: LandlockScopeAbstractUnixSocket | LandlockScopeSignal,
		Adds:   "signals and abstract Unix sockets scoped to the run (held by seccomp too)"},
	{ABI: 7, Kernel: "6.15",
		FS:       landlockABI1FS | landlockFSRefer | LandlockFSTruncate | landlockFSIoctlDev,
		Net:      LandlockNetBindTCP | LandlockNetConnectTCP,
		Scopes:   LandlockScopeAbstractUnixSocket | LandlockScopeSignal,
		LogFlags: 1<<0 | 1<<1 | 1<<2,
		Adds: "the logging of denials to the audit log, set by flags Sabline leaves at " +
			"their default"},
}

// LandlockABIOf returns what abi offers: abi's line of landlockABIs, the
// line of LandlockMaxABI for a higher ABI, and nothing (ABI 0) for an
// ABI below 1.
func LandlockABIOf(abi int) LandlockABIInfo {
	switch {
	case abi < 1:
		return LandlockABIInfo{}
	case abi > len(landlockABIs):
		return landlockABIs[len(landlockABIs)-1]
	}
	return landlockABIs[abi-1]
}

// landlockSince returns the first ABI whose line has offers true, and 0
// when none has.
func landlockSince(offers func(LandlockABIInfo) bool) int {
	for _, i := range landlockABIs {
		if offers(i) {
			return i.ABI
		}
	}
	return 0
}

// LandlockABITCP is the first Landlock ABI that holds TCP bind and
// connect. It is a constant, so that no caller can change it; the table
// says the same (landlockABIOffersTCP).
const LandlockABITCP = 4

// The first ABI of each feature a plan, an assessment or a cell speaks
// of, read from landlockABIs.
var (
	// landlockABIRefer: renaming and linking into another directory.
	landlockABIRefer = landlockSince(func(i LandlockABIInfo) bool { return i.FS&landlockFSRefer != 0 })
	// landlockABITruncate: truncation.
	landlockABITruncate = landlockSince(func(i LandlockABIInfo) bool {
		return i.FS&LandlockFSTruncate != 0
	})
	// landlockABIOffersTCP: TCP bind and connect, as the table says
	// (LandlockABITCP, which TestLandlockABITable holds to it).
	landlockABIOffersTCP = landlockSince(func(i LandlockABIInfo) bool {
		return i.Net&(LandlockNetBindTCP|LandlockNetConnectTCP) ==
			LandlockNetBindTCP|LandlockNetConnectTCP
	})
	// landlockABIScopes: signals and abstract Unix sockets scoped.
	landlockABIScopes = landlockSince(func(i LandlockABIInfo) bool {
		return i.Scopes&LandlockScopeSignal != 0
	})
)

// LandlockABIs returns a copy of the table of Landlock ABIs, oldest
// first: what each adds and the kernel that brought it.
func LandlockABIs() []LandlockABIInfo { return slices.Clone(landlockABIs) }

// LandlockABIRefer is the first ABI that holds renaming and linking into
// another directory.
func LandlockABIRefer() int { return landlockABIRefer }

// LandlockABITruncate is the first ABI that holds truncation.
func LandlockABITruncate() int { return landlockABITruncate }

// LandlockABIScopes is the first ABI that scopes signals and abstract
// Unix sockets.
func LandlockABIScopes() int { return landlockABIScopes }

// ABIText is "ABI N" for prose.
func ABIText(abi int) string { return "ABI " + strconv.Itoa(abi) }
