package windows

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// What a Windows run's job object must hold, and what the worker made of
// what it found, as functions that run on any system. The constants are
// winnt.h's; apply_windows.go checks them against x/sys/windows when it
// is built.

// Job limit flags (JOBOBJECT_BASIC_LIMIT_INFORMATION.LimitFlags).
const (
	jobLimitActiveProcess uint32 = 0x00000008 // JOB_OBJECT_LIMIT_ACTIVE_PROCESS
	jobLimitProcessMemory uint32 = 0x00000100 // JOB_OBJECT_LIMIT_PROCESS_MEMORY
	jobLimitKillOnClose   uint32 = 0x00002000 // JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
)

// jobLimitBreakaway are the limit flags that let a process of the job
// start one outside it, where the active process limit does not count
// it: JOB_OBJECT_LIMIT_BREAKAWAY_OK (with CREATE_BREAKAWAY_FROM_JOB) and
// JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK (always). No job Sabline makes
// sets either.
const jobLimitBreakaway uint32 = 0x00000800 | 0x00001000

// jobUIFlags are the JOB_OBJECT_UILIMIT_* flags Plan names.
var jobUIFlags = map[string]uint32{
	"JOB_OBJECT_UILIMIT_HANDLES":          0x00000001,
	"JOB_OBJECT_UILIMIT_READCLIPBOARD":    0x00000002,
	"JOB_OBJECT_UILIMIT_WRITECLIPBOARD":   0x00000004,
	"JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS": 0x00000008,
	"JOB_OBJECT_UILIMIT_DISPLAYSETTINGS":  0x00000010,
	"JOB_OBJECT_UILIMIT_GLOBALATOMS":      0x00000020,
	"JOB_OBJECT_UILIMIT_DESKTOP":          0x00000040,
	"JOB_OBJECT_UILIMIT_EXITWINDOWS":      0x00000080,
}

// lowIntegrityRID is SECURITY_MANDATORY_LOW_RID: a token at or below it
// writes only to objects labelled low.
const lowIntegrityRID = 0x1000

// jobLimits is what a job object holds, in the terms of
// SetInformationJobObject and QueryInformationJobObject.
type jobLimits struct {
	LimitFlags         uint32
	ActiveProcessLimit uint32
	UIRestrictions     uint32
	ProcessMemoryLimit uint64 // bytes; with jobLimitProcessMemory
}

// windowsJobLimits is the job plan asks for. Every job, a run's that
// enforces nothing too, ends what is left in it when the supervisor
// closes it.
func windowsJobLimits(plan Plan) (jobLimits, error) {
	j := jobLimits{LimitFlags: jobLimitKillOnClose}
	if plan.JobActiveProcessLimit > 0 {
		j.LimitFlags |= jobLimitActiveProcess
		j.ActiveProcessLimit = uint32(plan.JobActiveProcessLimit)
	}
	if plan.JobMemoryLimitMB > 0 {
		j.LimitFlags |= jobLimitProcessMemory
		j.ProcessMemoryLimit = uint64(plan.JobMemoryLimitMB) << 20
	}
	for _, name := range plan.JobUIRestrictions {
		f, ok := jobUIFlags[name]
		if !ok {
			return j, fmt.Errorf("the plan names an unknown job UI restriction %s", name)
		}
		j.UIRestrictions |= f
	}
	return j, nil
}

// jobHeld says what of want the job got does not hold: nil when it holds
// all of it (or more).
func jobHeld(want, got jobLimits) error {
	var miss []string
	if got.LimitFlags&want.LimitFlags != want.LimitFlags {
		miss = append(miss, fmt.Sprintf("limit flags %#x of %#x", got.LimitFlags&want.LimitFlags,
			want.LimitFlags))
	}
	if want.LimitFlags&jobLimitActiveProcess != 0 && got.LimitFlags&jobLimitBreakaway != 0 {
		miss = append(miss, fmt.Sprintf("breakaway allowed (limit flags %#x), so a process it starts "+
			"may leave it", got.LimitFlags&jobLimitBreakaway))
	}
	if want.LimitFlags&jobLimitActiveProcess != 0 && got.ActiveProcessLimit > want.ActiveProcessLimit {
		miss = append(miss, fmt.Sprintf("an active process limit of %d, not %d", got.ActiveProcessLimit,
			want.ActiveProcessLimit))
	}
	if want.LimitFlags&jobLimitProcessMemory != 0 && got.ProcessMemoryLimit > want.ProcessMemoryLimit {
		miss = append(miss, fmt.Sprintf("a process memory limit of %d bytes, not %d",
			got.ProcessMemoryLimit, want.ProcessMemoryLimit))
	}
	if got.UIRestrictions&want.UIRestrictions != want.UIRestrictions {
		miss = append(miss, fmt.Sprintf("UI restrictions %#x of %#x",
			got.UIRestrictions&want.UIRestrictions, want.UIRestrictions))
	}
	if len(miss) > 0 {
		return errors.New("its job has " + strings.Join(miss, ", "))
	}
	return nil
}

// privilegesBeyond returns the privileges of held that kept does not
// name, sorted: before removal, what to remove; after, what is left that
// should not be.
func privilegesBeyond(held, kept []string) []string {
	var out []string
	for _, p := range held {
		if !slices.Contains(kept, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// containerClaim decides whether the worker is in the AppContainer it was
// told it runs in (told, a SID string; "" when it was told of none): only
// when its token says it is an AppContainer's (isContainer) and the
// token's AppContainer SID is told. problem says why not when it was
// told of one.
func containerClaim(told string, isContainer bool, sid string,
	err error) (held bool, problem string) {
	switch {
	case told == "":
		return false, ""
	case err != nil:
		return false,
			"the worker could not read its token to check the AppContainer it was told of: " + err.Error()
	case !isContainer:
		return false, "the worker was told it runs in the AppContainer " + told + ", but its token is " +
			"not an AppContainer's: nothing of it is claimed"
	case !strings.EqualFold(sid, told):
		return false, "the worker was told it runs in the AppContainer " + told +
			", but its token's is " + sid + ": nothing of it is claimed"
	}
	return true, ""
}

// windowsObserved is what the worker found of itself on Windows after
// its own steps: each value with the error of the call that read or set
// it.
type windowsObserved struct {
	Job    jobLimits // the limits of the worker's own job
	JobErr error     // the worker is in no job, or the query failed

	Privileges []string // the privileges its token holds after removal
	PrivErr    error

	IntegrityRID uint32 // the token's integrity after lowering; read only when the plan is low
	IntegrityErr error

	ContainerTold string // the SID the supervisor said, "" for none
	ContainerOff  string // why the supervisor left the container off
	IsContainer   bool
	ContainerSID  string
	ContainerErr  error

	// CarveOuts are the guarded locations of the run (guard.Set.CarveOuts),
	// as the worker was handed them.
	CarveOuts []guard.CarveOut
	// Resolve is the path the system opens for an ACE's path, its links,
	// junctions and short names followed, as the ACE written there lands
	// on it; "" where it cannot be told. nil resolves nothing.
	Resolve func(path string) string
}

// windowsResult is the Result of a Windows worker: each layer is claimed
// only as the worker found it held, and a layer it could not claim adds
// the reason why.
func windowsResult(p core.Policy, plan Plan, o windowsObserved) core.Result {
	if !p.Enforced {
		return core.OffResult(p)
	}
	var held Held
	problem := func(layer, text string) {
		held.Problems = append(held.Problems, core.Gap{Layer: layer, Kind: core.GapUnheld, Text: text})
	}
	want, err := windowsJobLimits(plan)
	switch {
	case err != nil:
		problem(core.LayerJobObject, "the job object was not checked: "+err.Error())
	case o.JobErr != nil:
		problem(core.LayerJobObject, "the worker's job could not be read: "+o.JobErr.Error())
	default:
		if err := jobHeld(want, o.Job); err != nil {
			problem(core.LayerJobObject, "the job object does not hold the worker: "+err.Error())
		} else {
			held.Job = true
		}
	}
	if o.PrivErr != nil {
		problem(core.LayerTokenPrivs, "the token's privileges: "+o.PrivErr.Error())
	} else if left := privilegesBeyond(o.Privileges, plan.PrivilegesKept); len(left) > 0 {
		problem(core.LayerTokenPrivs, "the token still holds "+strings.Join(left, ", "))
	} else {
		held.Token = true
	}
	if plan.IntegrityLevel == integrityLow {
		switch {
		case o.IntegrityErr != nil:
			problem(core.LayerLowIntegrity, "the low integrity level was not set: "+o.IntegrityErr.Error())
		case o.IntegrityRID > lowIntegrityRID:
			problem(core.LayerLowIntegrity, fmt.Sprintf("the token's integrity level is %#x, above low",
				o.IntegrityRID))
		default:
			held.LowIntegrity = true
		}
	}
	var claim string
	held.AppContainer, claim = containerClaim(o.ContainerTold, o.IsContainer, o.ContainerSID,
		o.ContainerErr)
	if claim != "" {
		problem(core.LayerAppContainer, claim)
	}
	if held.AppContainer {
		held.Guarded = guardedBeneath(plan.ACEs, o.CarveOuts, o.Resolve)
	} else {
		held.ContainerOffReason = o.ContainerOff
		if held.ContainerOffReason == "" && o.ContainerTold == "" {
			held.ContainerOffReason = plan.ContainerOffReason
		}
	}
	return Assess(p, held)
}

// guardedBeneath returns, in words, the guarded locations of carveOuts
// that the container reaches through aces, since an ACE on a directory
// is inherited by everything beneath it (guard.Reached). Names are
// compared as Windows compares them (windowsWithin). Each ACE's path is
// taken as written and as resolve resolves it (nil for as written only):
// an ACE given to a link or a junction may land on what it leads to, as
// Landlock's rules and their carving are resolved too.
func guardedBeneath(aces []windowsACE, carveOuts []guard.CarveOut,
	resolve func(string) string) []string {
	var paths []string
	for _, a := range aces {
		paths = append(paths, a.Path)
		if resolve == nil {
			continue
		}
		if r := resolve(a.Path); r != "" && r != a.Path {
			paths = append(paths, r)
		}
	}
	return guard.Reached(carveOuts, paths, windowsWithin)
}

// windowsWithin is budget.Within for Windows paths, on any system, and
// errs toward within: p is dir or lies beneath it, each compared as
// Windows may name the same file: names without case (guard.Fold), / and
// \ both separators, a \\?\, \\.\ or \??\ prefix dropped (UNC\ after one
// is \\), and in each name a stream (name:stream, name::$INDEX_ALLOCATION)
// and trailing dots and spaces dropped, as Win32 drops them.
func windowsWithin(p, dir string) bool {
	p, dir = windowsNorm(p), strings.TrimSuffix(windowsNorm(dir), `\`)
	return p == dir || strings.HasPrefix(p, dir+`\`)
}

// windowsNorm is p as windowsWithin compares it.
func windowsNorm(p string) string {
	p = strings.ToLower(guard.Fold(strings.ReplaceAll(p, "/", `\`)))
	for _, prefix := range []string{`\\?\`, `\\.\`, `\??\`} {
		if rest, ok := strings.CutPrefix(p, prefix+`unc\`); ok {
			p = `\\` + rest
		} else {
			p = strings.TrimPrefix(p, prefix)
		}
	}
	names := strings.Split(p, `\`)
	for i, name := range names {
		if i == 0 && len(name) == 2 && name[1] == ':' {
			continue // the drive
		}
		name, _, _ = strings.Cut(name, ":")
		if trimmed := strings.TrimRight(name, ". "); trimmed != "" {
			name = trimmed
		}
		names[i] = name
	}
	return strings.Join(names, `\`)
}

// Names of the variables through which the supervisor tells the worker of
// its container: the SID it started it in, or why it left the container
// off. The worker takes neither on trust: a SID is claimed only when its
// own token names it, and the reason only explains a layer not claimed.
const (
	containerSIDEnv = "SABLINE_APPCONTAINER_SID"
	containerOffEnv = "SABLINE_APPCONTAINER_OFF"
)

// maxContainerOff bounds the reason read from containerOffEnv.
const maxContainerOff = 512

// containerOffReason reads a reason from the environment, bounded and on
// one line.
func containerOffReason(s string) string {
	if len(s) > maxContainerOff {
		s = s[:maxContainerOff]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// withSystemRoot returns env with SYSTEMROOT set to root where env names
// none (in any case) and root is not empty, as os/exec adds it to a
// process it starts: Windows' sockets do not load without it, and a
// worker without the env grant has no SYSTEMROOT of the operator's. A
// worker started in its AppContainer is started by Sabline's own call,
// with env as it is.
func withSystemRoot(env []string, root string) []string {
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); strings.EqualFold(name, "SYSTEMROOT") {
			return env
		}
	}
	if root == "" {
		return env
	}
	return append(env, "SYSTEMROOT="+root)
}

// withContainerEnv returns env without either container variable, and
// with the one that says what the supervisor did.
func withContainerEnv(env []string, sid, off string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.EqualFold(name, containerSIDEnv) && !strings.EqualFold(name, containerOffEnv) {
			out = append(out, kv)
		}
	}
	if sid != "" {
		return append(out, containerSIDEnv+"="+sid)
	}
	return append(out, containerOffEnv+"="+off)
}
