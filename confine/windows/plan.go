package windows

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/sabline/sabline/confine/core"
)

// windowsMaxACEFiles is the most files a granted path may hold for the run
// to get an AppContainer: an ACE given to a directory is copied into every
// file beneath it, for the run, and taken out again after.
const windowsMaxACEFiles = 1000

// Integrity levels of a Windows plan.
const (
	integrityLow    = "low"
	integrityMedium = "medium"
)

// ACE access of a Windows plan.
const (
	aceRead      = "read"
	aceReadWrite = "read-write"
)

// windowsACE is an access-control entry for the run's AppContainer on a
// path and everything beneath it.
type windowsACE struct {
	Path   string `json:"path"`
	Access string `json:"access"` // aceRead or aceReadWrite
}

// Plan is how a run is held on Windows: the job object the worker
// runs in, its token, and the AppContainer the supervisor starts it in.
type Plan struct {
	// JobActiveProcessLimit is the job's active process limit: 1, the
	// worker itself, so that it starts no process.
	JobActiveProcessLimit int `json:"job_active_process_limit"`
	// JobUIRestrictions are the JOB_OBJECT_UILIMIT_* flags the job sets:
	// no clipboard, desktop, display settings, global atoms, handles of
	// other processes' windows, system parameters or logoff.
	JobUIRestrictions []string `json:"job_ui_restrictions"`
	// JobMemoryLimitMB is the job's per-process memory limit; 0 for none.
	JobMemoryLimitMB int `json:"job_memory_limit_mb"`
	// PrivilegesKept are the only privileges left in the token.
	PrivilegesKept []string `json:"privileges_kept"`
	// IntegrityLevel is the token's, integrityLow or integrityMedium, and
	// IntegrityReason the sentence that says why.
	IntegrityLevel  string `json:"integrity_level"`
	IntegrityReason string `json:"integrity_reason"`
	// AppContainer is true when the worker runs in an AppContainer;
	// ContainerOffReason says why it does not, "" when it does.
	AppContainer       bool   `json:"appcontainer"`
	ContainerOffReason string `json:"container_off_reason"`
	// Capabilities are the container's: internetClient under a net grant,
	// none when the network is closed or there is no container.
	Capabilities []string `json:"capabilities"`
	// ACEs are the container's, one per granted path and interpreter
	// need; none when there is no container.
	ACEs []windowsACE `json:"aces"`
}

// PlanFor plans how a run of p is held on Windows, with the
// interpreter's needs resolved through n, the number of files beneath a
// granted path told by fileCount (not nil), and a memory limit of
// memoryMB (0 for none).
//
// The token keeps SeChangeNotifyPrivilege alone. It is low integrity when
// nothing is granted for writing, which refuses writes to anything of the
// user's but what is labelled low (AppData\LocalLow is), and medium
// otherwise, since the user's files are medium integrity and a low token
// could not write a grant.
//
// The AppContainer reaches only what it has an ACE for: read for a read
// grant, read-write for a write grant and the private temporary directory
// (a write grant is not write-only on Windows, as it is in the language
// and under Landlock: Assess says a read back there is the language's).
// A low integrity token writes only to objects labelled low, so the
// private temporary directory, Sabline's own, must be. /dev/null and
// /dev/urandom need no ACE on Windows.
//
// The container is left off, and ContainerOffReason gives the first of
// these reasons in the words a receipt shows, where it would refuse what
// the budget allows:
//
//   - "a loopback host is granted" (localhost, 127.0.0.0/8, ::1): Windows
//     keeps a container from the loopback address;
//   - "the budget restricts neither reads nor writes": a container reaches
//     only what it has an ACE for;
//   - "the grant DIR covers more than 1000 files" (windowsMaxACEFiles):
//     an ACE given to a directory is copied into every file beneath it.
//
// A policy that enforces nothing gets a plan that applies nothing.
func PlanFor(p core.Policy, n core.Needs, fileCount func(path string) int, memoryMB int) Plan {
	if !p.Enforced {
		return Plan{
			IntegrityLevel:     integrityMedium,
			IntegrityReason:    "the policy enforces nothing",
			ContainerOffReason: p.OffReason(),
		}
	}
	plan := Plan{
		JobActiveProcessLimit: 1,
		JobUIRestrictions: []string{"JOB_OBJECT_UILIMIT_HANDLES", "JOB_OBJECT_UILIMIT_READCLIPBOARD",
			"JOB_OBJECT_UILIMIT_WRITECLIPBOARD", "JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS",
			"JOB_OBJECT_UILIMIT_DISPLAYSETTINGS", "JOB_OBJECT_UILIMIT_GLOBALATOMS",
			"JOB_OBJECT_UILIMIT_DESKTOP", "JOB_OBJECT_UILIMIT_EXITWINDOWS"},
		JobMemoryLimitMB: memoryMB,
		PrivilegesKept:   []string{"SeChangeNotifyPrivilege"},
		IntegrityLevel:   integrityLow,
		IntegrityReason: "nothing is granted for writing, so the token is low " +
			"integrity and cannot write to anything of the user's but what is labelled low " +
			"(AppData\\LocalLow is)",
	}
	if p.Write.Unrestricted || len(p.Write.Paths) > 0 {
		plan.IntegrityLevel = integrityMedium
		plan.IntegrityReason = "writes are granted, and a low integrity token could not " +
			"write to the user's files, which are medium integrity"
	}

	var aces []windowsACE
	add := func(path, access string) {
		for i := range aces {
			if aces[i].Path == path {
				if access == aceReadWrite {
					aces[i].Access = aceReadWrite
				}
				return
			}
		}
		aces = append(aces, windowsACE{Path: path, Access: access})
	}
	for _, dir := range p.Read.Paths {
		add(dir, aceRead)
	}
	for _, dir := range p.Write.Paths {
		add(dir, aceReadWrite)
	}
	granted := len(aces)
	for _, np := range core.NeedPaths(p, n) {
		switch {
		case np.Need == core.NeedDevNull || np.Need == core.NeedURandom: // no such file on Windows
		case np.Write:
			add(np.Path, aceReadWrite)
		default:
			add(np.Path, aceRead)
		}
	}

	switch {
	case loopbackGranted(p.Network):
		plan.ContainerOffReason = "a loopback host is granted"
	case p.Read.Unrestricted && p.Write.Unrestricted:
		plan.ContainerOffReason = "the budget restricts neither reads nor writes"
	default:
		for _, ace := range aces[:granted] {
			if fileCount(ace.Path) > windowsMaxACEFiles {
				plan.ContainerOffReason = "the grant " + ace.Path + " covers more than " +
					strconv.Itoa(windowsMaxACEFiles) + " files"
				break
			}
		}
	}
	if plan.ContainerOffReason != "" {
		return plan
	}
	plan.AppContainer = true
	plan.ACEs = aces
	if p.Network.Mode != core.NetClosed {
		plan.Capabilities = []string{"internetClient"}
	}
	return plan
}

// loopbackGranted reports whether a net grant, of TCP or of UDP, names
// localhost or a loopback address.
func loopbackGranted(n core.Network) bool {
	for _, h := range append(append([]core.Endpoint(nil), n.Hosts...), n.UDP...) {
		name := strings.TrimSuffix(h.Host, ".")
		addr, err := netip.ParseAddr(name)
		if name == "localhost" || err == nil && addr.Unmap().IsLoopback() {
			return true
		}
	}
	return false
}
