//go:build windows

package windows

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/guard"
)

// winnt.h's values in windows_held.go, checked against x/sys/windows: a
// difference makes one of these array lengths negative and the build
// fails.
var (
	_ [jobLimitActiveProcess - windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS]struct{}
	_ [windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS - jobLimitActiveProcess]struct{}
	_ [jobLimitProcessMemory - windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY]struct{}
	_ [windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY - jobLimitProcessMemory]struct{}
	_ [jobLimitKillOnClose - windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE]struct{}
	_ [windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE - jobLimitKillOnClose]struct{}
	_ [aceMaskRead - (windows.FILE_GENERIC_READ | windows.FILE_GENERIC_EXECUTE)]struct{}
	_ [(windows.FILE_GENERIC_READ | windows.FILE_GENERIC_EXECUTE) - aceMaskRead]struct{}
	_ [aceMaskReadWrite - (windows.FILE_GENERIC_READ | windows.FILE_GENERIC_EXECUTE |
		windows.FILE_GENERIC_WRITE | windows.DELETE)]struct{}
	_ [(windows.FILE_GENERIC_READ | windows.FILE_GENERIC_EXECUTE |
		windows.FILE_GENERIC_WRITE | windows.DELETE) - aceMaskReadWrite]struct{}
)

// TOKEN_INFORMATION_CLASS values x/sys/windows does not name: they follow
// TokenLogonSid in winnt.h (TokenIsAppContainer, TokenCapabilities,
// TokenAppContainerSid).
const (
	tokenIsAppContainer  = windows.TokenLogonSid + 1
	tokenAppContainerSid = windows.TokenLogonSid + 3
)

// Apply holds the worker on Windows with what it can do to itself: its
// token loses every privilege but SeChangeNotifyPrivilege and, when
// nothing is granted for writing, drops to low integrity. The job object
// and the AppContainer are the supervisor's (PrepareWorker): the worker
// reads its own job and token and claims each only as it finds it.
// maxMemoryMB is the run's memory limit, 0 for none; carveOuts are the
// run's guarded locations, which the container's ACEs may reach.
func Apply(p core.Policy, maxMemoryMB int, carveOuts []guard.CarveOut) (core.Result, error) {
	plan := PlanFor(p, core.Needs{}, func(string) int { return 0 }, maxMemoryMB)
	obs := windowsObserved{CarveOuts: carveOuts, Resolve: aceTarget}
	obs.Job, obs.JobErr = ownJob()
	obs.Privileges, obs.PrivErr = removePrivileges(plan.PrivilegesKept)
	if plan.IntegrityLevel == integrityLow {
		obs.IntegrityRID, obs.IntegrityErr = lowerIntegrity()
	}
	obs.ContainerTold = os.Getenv(containerSIDEnv)
	obs.ContainerOff = containerOffReason(os.Getenv(containerOffEnv))
	if obs.ContainerTold != "" {
		obs.IsContainer, obs.ContainerSID, obs.ContainerErr = ownContainer()
	}
	err := errors.Join(obs.JobErr, obs.PrivErr, obs.IntegrityErr, obs.ContainerErr)
	return windowsResult(p, plan, obs), err
}

// aceTarget is what the system opens for an ACE's path, its links,
// junctions and short names followed (finalPath); "" where it cannot be
// opened.
func aceTarget(path string) string {
	p, err := finalPath(path)
	if err != nil {
		return ""
	}
	return p
}

// ownJob reads the limits of the job the worker is in:
// QueryInformationJobObject with a NULL handle reads the calling
// process's own (immediate) job.
func ownJob() (jobLimits, error) {
	var ext windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if err := windows.QueryInformationJobObject(0, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&ext)), uint32(unsafe.Sizeof(ext)), nil); err != nil {
		return jobLimits{}, fmt.Errorf("QueryInformationJobObject(extended limits): %w", err)
	}
	var ui windows.JOBOBJECT_BASIC_UI_RESTRICTIONS
	if err := windows.QueryInformationJobObject(0, windows.JobObjectBasicUIRestrictions,
		uintptr(unsafe.Pointer(&ui)), uint32(unsafe.Sizeof(ui)), nil); err != nil {
		return jobLimits{}, fmt.Errorf("QueryInformationJobObject(UI restrictions): %w", err)
	}
	return jobLimits{
		LimitFlags:         ext.BasicLimitInformation.LimitFlags,
		ActiveProcessLimit: ext.BasicLimitInformation.ActiveProcessLimit,
		UIRestrictions:     ui.UIRestrictionsClass,
		ProcessMemoryLimit: uint64(ext.ProcessMemoryLimit),
	}, nil
}

var procLookupPrivilegeNameW = windows.NewLazySystemDLL("advapi32.dll").NewProc(
	"LookupPrivilegeNameW")

// privilegeName is LookupPrivilegeNameW of luid on this system.
func privilegeName(luid windows.LUID) (string, error) {
	buf := make([]uint16, 128)
	n := uint32(len(buf))
	r, _, err := procLookupPrivilegeNameW.Call(0, uintptr(unsafe.Pointer(&luid)),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)))
	if r == 0 {
		return "", fmt.Errorf("LookupPrivilegeNameW: %w", err)
	}
	return windows.UTF16ToString(buf[:n]), nil
}

// tokenPrivileges reads the token's privileges, by name.
func tokenPrivileges(tok windows.Token) ([]windows.LUIDAndAttributes, []string, error) {
	var n uint32
	_ = windows.GetTokenInformation(tok, windows.TokenPrivileges, nil, 0, &n) // asks for the size
	if n == 0 {
		return nil, nil, errors.New("GetTokenInformation(TokenPrivileges) gave no size")
	}
	buf := make([]byte, n)
	if err := windows.GetTokenInformation(tok, windows.TokenPrivileges, &buf[0], n, &n); err != nil {
		return nil, nil, fmt.Errorf("GetTokenInformation(TokenPrivileges): %w", err)
	}
	list := (*windows.Tokenprivileges)(unsafe.Pointer(&buf[0])).AllPrivileges()
	privs := append([]windows.LUIDAndAttributes{}, list...)
	names := make([]string, len(privs))
	for i, pr := range privs {
		name, err := privilegeName(pr.Luid)
		if err != nil {
			return nil, nil, err
		}
		names[i] = name
	}
	return privs, names, nil
}

// removePrivileges removes from the process's token every privilege
// kept does not name (SE_PRIVILEGE_REMOVED: gone for good, not only
// disabled), then reads the token back and returns what it holds.
// AdjustTokenPrivileges can succeed without removing all, so the read
// back is what counts.
func removePrivileges(kept []string) ([]string, error) {
	var tok windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(),
		windows.TOKEN_ADJUST_PRIVILEGES|windows.TOKEN_QUERY, &tok); err != nil {
		return nil, fmt.Errorf("OpenProcessToken: %w", err)
	}
	defer tok.Close()
	privs, names, err := tokenPrivileges(tok)
	if err != nil {
		return nil, err
	}
	var remove []windows.LUIDAndAttributes
	for i, pr := range privs {
		if len(privilegesBeyond([]string{names[i]}, kept)) > 0 {
			remove = append(remove, windows.LUIDAndAttributes{Luid: pr.Luid,
				Attributes: windows.SE_PRIVILEGE_REMOVED})
		}
	}
	if len(remove) > 0 {
		// TOKEN_PRIVILEGES is a count and then the entries.
		buf := make([]byte, unsafe.Sizeof(uint32(0))+uintptr(len(remove))*unsafe.Sizeof(remove[0])+8)
		tp := (*windows.Tokenprivileges)(unsafe.Pointer(&buf[0]))
		tp.PrivilegeCount = uint32(len(remove))
		copy(tp.AllPrivileges(), remove)
		if err := windows.AdjustTokenPrivileges(tok, false, tp, 0, nil, nil); err != nil {
			return nil, fmt.Errorf("AdjustTokenPrivileges: %w", err)
		}
	}
	_, left, err := tokenPrivileges(tok)
	return left, err
}

// lowerIntegrity sets the process token's integrity level to low
// (SetTokenInformation with TokenIntegrityLevel: a process may lower its
// own) and returns the level the token then reads, as a RID.
func lowerIntegrity() (uint32, error) {
	var tok windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(),
		windows.TOKEN_ADJUST_DEFAULT|windows.TOKEN_QUERY, &tok); err != nil {
		return 0, fmt.Errorf("OpenProcessToken: %w", err)
	}
	defer tok.Close()
	low, err := windows.CreateWellKnownSid(windows.WinLowLabelSid)
	if err != nil {
		return 0, fmt.Errorf("CreateWellKnownSid(WinLowLabelSid): %w", err)
	}
	label := windows.Tokenmandatorylabel{Label: windows.SIDAndAttributes{Sid: low,
		Attributes: windows.SE_GROUP_INTEGRITY}}
	if err := windows.SetTokenInformation(tok, windows.TokenIntegrityLevel,
		(*byte)(unsafe.Pointer(&label)), label.Size()); err != nil {
		return 0, fmt.Errorf("SetTokenInformation(TokenIntegrityLevel): %w", err)
	}
	var n uint32
	_ = windows.GetTokenInformation(tok, windows.TokenIntegrityLevel, nil, 0, &n)
	if n == 0 {
		return 0, errors.New("GetTokenInformation(TokenIntegrityLevel) gave no size")
	}
	buf := make([]byte, n)
	if err := windows.GetTokenInformation(tok, windows.TokenIntegrityLevel, &buf[0], n,
		&n); err != nil {
		return 0, fmt.Errorf("GetTokenInformation(TokenIntegrityLevel): %w", err)
	}
	sid := (*windows.Tokenmandatorylabel)(unsafe.Pointer(&buf[0])).Label.Sid
	count := sid.SubAuthorityCount()
	if count == 0 {
		return 0, errors.New("the token's integrity SID has no sub-authority")
	}
	return sid.SubAuthority(uint32(count) - 1), nil
}

// ownContainer reads whether the process's token is an AppContainer's
// (TokenIsAppContainer) and, when it is, its SID (TokenAppContainerSid).
func ownContainer() (bool, string, error) {
	tok := windows.GetCurrentProcessToken()
	var is, n uint32
	if err := windows.GetTokenInformation(tok, tokenIsAppContainer, (*byte)(unsafe.Pointer(&is)),
		uint32(unsafe.Sizeof(is)), &n); err != nil {
		return false, "", fmt.Errorf("GetTokenInformation(TokenIsAppContainer): %w", err)
	}
	if is == 0 {
		return false, "", nil
	}
	_ = windows.GetTokenInformation(tok, tokenAppContainerSid, nil, 0, &n)
	if n == 0 {
		return true, "", errors.New("GetTokenInformation(TokenAppContainerSid) gave no size")
	}
	buf := make([]byte, n)
	if err := windows.GetTokenInformation(tok, tokenAppContainerSid, &buf[0], n, &n); err != nil {
		return true, "", fmt.Errorf("GetTokenInformation(TokenAppContainerSid): %w", err)
	}
	// TOKEN_APPCONTAINER_INFORMATION is one PSID.
	sid := *(**windows.SID)(unsafe.Pointer(&buf[0]))
	if sid == nil {
		return true, "", errors.New("the token names no AppContainer SID")
	}
	return true, sid.String(), nil
}
