package confine

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// Refusal is one line of the refusals table: a layer of a system that
// refuses a call with an errno.
type Refusal struct {
	System System
	// Errno is the errno's name as the system's headers spell it:
	// "EACCES" on Linux and macOS, "ERROR_ACCESS_DENIED" on Windows.
	Errno string
	// Code is the Windows error's number (winerror.h), which is the same
	// on every Windows architecture; 0 on Linux and macOS, whose numbers
	// differ between the two and are read by name.
	Code uint32
	// Layer is the layer that refuses, named as a Result names it, with
	// Landlock as LayerLandlockFamily.
	Layer string
	// FromLandlockABI is, for a Landlock line, the first ABI that refuses
	// so; 0 for any.
	FromLandlockABI int
	// Why says which calls the layer refuses so.
	Why string
}

// refusals is the one table of the errnos each system's layers refuse
// with. For an errno that more than one layer gives, its lines are in the
// order RefusedBy takes them: the layer that most calls meet first. An
// errno no line names is refused by no layer this package applies: the
// call failed for a reason of its own.
var refusals = []Refusal{
	{System: Linux, Errno: "EPERM", Layer: core.LayerSeccomp,
		Why: "a call off the filter's allow-list, or one whose arguments the filter " +
			"refuses (a socket family, a clone flag, a signal to another process)"},
	{System: Linux, Errno: "EPERM", Layer: core.LayerLandlockFamily,
		FromLandlockABI: linux.LandlockABIScopes(),
		Why: "a signal or a connection to an abstract Unix " +
			"socket that would leave the run's Landlock domain"},
	{System: Linux, Errno: "EPERM", Layer: core.LayerCapabilities,
		Why: "a call that needs a capability the worker gave up"},
	{System: Linux, Errno: "ENOSYS", Layer: core.LayerSeccomp,
		Why: "clone3, which the filter answers so that the Go runtime makes its " +
			"threads with clone, and every number past or between the filter's table"},
	{System: Linux, Errno: "EACCES", Layer: core.LayerLandlockFamily,
		Why: "a file access beneath no rule that allows it, executing any file, and from " +
			linux.ABIText(linux.LandlockABITCP) +
			" a TCP bind or connect: a worker's connections are its supervisor's to make"},
	{System: Linux, Errno: "EXDEV", Layer: core.LayerLandlockFamily,
		Why: "a rename or link of a file into another directory: no rule grants refer, and below " +
			linux.ABIText(linux.LandlockABIRefer()) + " the kernel refuses every such rename"},

	{System: Darwin, Errno: "EPERM", Layer: core.LayerSandboxProfile,
		Why: "every operation the profile denies: a file read or written, a network operation, " +
			"process-fork and process-exec (EACCES is the file's own permissions, not the profile)"},

	{System: Windows, Errno: "ERROR_ACCESS_DENIED", Code: 5, Layer: core.LayerAppContainer,
		Why: "a file or key the container has no ACE for"},
	{System: Windows, Errno: "ERROR_ACCESS_DENIED", Code: 5, Layer: core.LayerLowIntegrity,
		Why: "a write to an object of medium integrity or above, outside the container"},
	{System: Windows, Errno: "ERROR_ACCESS_DENIED", Code: 5, Layer: core.LayerJobObject,
		Why: "a user-interface call the job's UI restrictions " +
			"refuse (the clipboard, the desktop, global atoms)"},
	{System: Windows, Errno: "WSAEACCES", Code: 10013, Layer: core.LayerAppContainer,
		Why: "a connection the container's capabilities do not admit: any, or the loopback address"},
	{System: Windows, Errno: "ERROR_NOT_ENOUGH_QUOTA", Code: 1816, Layer: core.LayerJobObject,
		Why: "a process started past the job's limit of one active process"},
	{System: Windows, Errno: "ERROR_PRIVILEGE_NOT_HELD", Code: 1314, Layer: core.LayerTokenPrivs,
		Why: "a call that needs a privilege removed from the token"},
}

// RefusedBy names the layer that refused a call on sys answered with the
// errno of that name: the first layer of Refusals with that errno, as a
// Result names it (Landlock as LayerLandlockFamily); "" when no layer of
// sys refuses with it. Where more than one layer gives the errno it is
// the one most calls meet; RefusingLayers gives them all.
func RefusedBy(sys System, errno string) string {
	for _, r := range refusals {
		if r.System == sys && r.Errno == errno {
			return r.Layer
		}
	}
	return ""
}

// RefusingLayers returns the layers of applied (named as a Result names
// them: landlock-abi7, seccomp...) that may have refused a call on sys
// answered with the errno of that name, in applied's order; nil when none
// may have. A Landlock layer counts only from the ABI its line names.
func RefusingLayers(sys System, errno string, applied []string) []string {
	var out []string
	for _, l := range applied {
		family, abi := l, 0
		if rest, ok := strings.CutPrefix(l, core.LayerLandlockFamily+"-abi"); ok {
			family = core.LayerLandlockFamily
			abi, _ = strconv.Atoi(rest)
		}
		for _, r := range refusals {
			if r.System == sys && r.Errno == errno && r.Layer == family && abi >= r.FromLandlockABI {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// WindowsErrnoName names a Windows error number of Refusals
// ("ERROR_ACCESS_DENIED" for 5), and false for one the table does not
// name.
func WindowsErrnoName(code uint32) (string, bool) {
	for _, r := range refusals {
		if r.System == Windows && r.Code == code {
			return r.Errno, true
		}
	}
	return "", false
}

// Refusals returns the table of the errors each system's layers refuse
// with, by which a failure is told to be a refusal (RefusingLayers); a
// copy, so that no caller can change what the worker's judge reads.
func Refusals() []Refusal { return slices.Clone(refusals) }
