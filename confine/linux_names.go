package confine

import (
	"io/fs"

	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/guard"
)

// The Linux layers' names that callers of confine use, kept here so that
// they read them as before. Each is the name of package linux.

type (
	// LandlockRuleset is linux.LandlockRuleset: a ruleset for one ABI.
	LandlockRuleset = linux.LandlockRuleset
	// LandlockRule is linux.LandlockRule: one path and its rights.
	LandlockRule = linux.LandlockRule
	// LandlockABIInfo is linux.LandlockABIInfo: what one ABI adds.
	LandlockABIInfo = linux.LandlockABIInfo
	// Carving is linux.Carving: how grants were carved around the guarded locations.
	Carving = linux.Carving
)

// The Landlock rights, network rights and scopes (linux.LandlockFSExecute and the others).
const (
	LandlockFSExecute               = linux.LandlockFSExecute
	LandlockFSWriteFile             = linux.LandlockFSWriteFile
	LandlockFSReadFile              = linux.LandlockFSReadFile
	LandlockFSReadDir               = linux.LandlockFSReadDir
	LandlockFSRemoveDir             = linux.LandlockFSRemoveDir
	LandlockFSRemoveFile            = linux.LandlockFSRemoveFile
	LandlockFSMakeDir               = linux.LandlockFSMakeDir
	LandlockFSMakeReg               = linux.LandlockFSMakeReg
	LandlockFSTruncate              = linux.LandlockFSTruncate
	LandlockNetBindTCP              = linux.LandlockNetBindTCP
	LandlockNetConnectTCP           = linux.LandlockNetConnectTCP
	LandlockScopeAbstractUnixSocket = linux.LandlockScopeAbstractUnixSocket
	LandlockScopeSignal             = linux.LandlockScopeSignal
)

// The Landlock ABIs named (linux.LandlockMaxABI and the others), the bound on a
// carved ruleset (linux.MaxCarvedRules), what holds a worker's memory in a
// cgroup (linux.CgroupHolds) and the knock-out switch (linux.LayersOnlyEnv).
const (
	LandlockMaxABI = linux.LandlockMaxABI // the highest ABI a plan is made for
	LandlockABITCP = linux.LandlockABITCP // the first ABI that holds TCP bind and connect
	MaxCarvedRules = linux.MaxCarvedRules // the most rules a carved ruleset has
	CgroupHolds    = linux.CgroupHolds    // a cgroup of the worker's own holds its memory
	LayersOnlyEnv  = linux.LayersOnlyEnv  // SABLINE_LAYERS_ONLY, read in a knock-out build only
)

// LandlockPlan returns the Landlock ruleset of p for ABI abi (linux.LandlockPlan).
func LandlockPlan(p Policy, n Needs, abi int) (LandlockRuleset, error) {
	return linux.LandlockPlan(p, n, abi)
}

// LandlockABIOf returns what ABI abi offers (linux.LandlockABIOf).
func LandlockABIOf(abi int) LandlockABIInfo { return linux.LandlockABIOf(abi) }

// LandlockAccessNames names the file-system rights of mask (linux.LandlockAccessNames).
func LandlockAccessNames(mask uint64) []string { return linux.LandlockAccessNames(mask) }

// LandlockNetNames names the network rights of mask (linux.LandlockNetNames).
func LandlockNetNames(mask uint64) []string { return linux.LandlockNetNames(mask) }

// LinuxNeeds resolves the needs p names to a Linux machine's paths (linux.LinuxNeeds).
func LinuxNeeds(p Policy, exe, tempDir string) Needs { return linux.LinuxNeeds(p, exe, tempDir) }

// CarveLandlock carves plan around carveOuts (linux.CarveLandlock).
func CarveLandlock(plan LandlockRuleset, carveOuts []guard.CarveOut,
	list func(dir string) ([]fs.DirEntry, error),
	maxRules int) (LandlockRuleset, Carving) {
	return linux.CarveLandlock(plan, carveOuts, list, maxRules)
}

// Moved withholds the grants of plan that resolve otherwise than when they
// were admitted (linux.Moved).
func Moved(plan LandlockRuleset, admitted map[string]string,
	resolve func(string) string) (LandlockRuleset, []string) {
	return linux.Moved(plan, admitted, resolve)
}
