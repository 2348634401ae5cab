package confine

import (
	"strconv"
	"strings"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
)

// Machine is what this machine offers for confinement, as `sabline doctor`
// reports it. Probe reads it without confining anything.
type Machine struct {
	OS           string `json:"os"`
	Kernel       string `json:"kernel,omitempty"`
	LandlockABI  int    `json:"landlock_abi"`
	LandlockNote string `json:"landlock_note,omitempty"` // why LandlockABI is 0, or below the kernel's own
	Seccomp      bool   `json:"seccomp"`
	SeccompNote  string `json:"seccomp_note,omitempty"`
	// SeccompMode and NoNewPrivs are this process's own state: a filter
	// or no_new_privs already set by a container or a parent.
	SeccompMode int  `json:"seccomp_mode"`
	NoNewPrivs  bool `json:"no_new_privs"`
}

// systemAdvice is the advice for a system whose layers the doctor does
// not probe: what this build applies there and where it has run.
var systemAdvice = map[System]string{
	Darwin: "this build applies a sandbox profile here (sandbox_init, which Apple has deprecated): " +
		"a run is partial at best, and its system calls are exercised only on the macOS leg of " +
		"CI, which has not run yet; for the kernel's full hold run untrusted programs on Linux",
	Windows: "this build applies a job object, a reduced token, a low integrity level and, where a " +
		"budget allows, an AppContainer here; these system calls are exercised only on the Windows " +
		"leg of CI, which has not run yet; for the kernel's full hold run untrusted programs on Linux",
}

// Advice says, for each layer this machine lacks or limits, what is
// missing and what the operator can do about it. What a Landlock ABI
// below LandlockMaxABI lacks is read from linux.LandlockABIs: one line for each
// higher ABI whose addition Sabline would hold.
func (m Machine) Advice() []string {
	sys, known := SystemOf(m.OS)
	switch {
	case !known:
		names := make([]string, len(systems))
		for i, s := range systems {
			names[i] = s.Title()
		}
		return []string{"this build of Sabline confines runs on " + core.JoinAnd(names) + " only: a " +
			"run here is level none; run untrusted programs on Linux, or in a virtual machine"}
	case sys != Linux:
		return []string{systemAdvice[sys]}
	}
	var out []string
	if m.LandlockABI == 0 {
		out = append(out, "Landlock is missing ("+m.LandlockNote+"): reads and writes are held by the "+
			"language alone. Use a kernel from "+
			linux.LandlockABIOf(1).Kernel+" with CONFIG_SECURITY_LANDLOCK=y and "+
			"landlock in the lsm= boot parameter")
	}
	for _, info := range linux.LandlockABIs() {
		if m.LandlockABI > 0 && info.ABI > m.LandlockABI && info.Lacking != "" {
			out = append(out,
				"Landlock ABI "+strconv.Itoa(m.LandlockABI)+" cannot hold "+info.Lacking+". Linux "+
					info.Kernel+" offers "+linux.ABIText(info.ABI))
		}
	}
	if !m.Seccomp {
		out = append(out, "seccomp is missing ("+m.SeccompNote+"): processes, signals, sockets and the "+
			"kernel's other surfaces are not held. Use a kernel with CONFIG_SECCOMP_FILTER=y")
	}
	if m.SeccompMode == 2 {
		out = append(out, "this process already runs under a seccomp filter (a container's, say): "+
			"Sabline adds its own, and what the outer one refuses stays refused")
	}
	return out
}

// LandlockOffers says in words what a kernel of Landlock abi offers, one
// phrase per ABI up to it (to LandlockMaxABI), from linux.LandlockABIs.
func LandlockOffers(abi int) []string {
	var out []string
	for _, info := range linux.LandlockABIs() {
		if info.ABI <= abi {
			out = append(out, linux.ABIText(info.ABI)+": "+info.Adds)
		}
	}
	return out
}

// procStatus reads, from the text of /proc/PID/status, the process's
// seccomp mode and whether no_new_privs is set. A field that is missing,
// empty or not a number reads as 0 or false.
func procStatus(status string) (seccompMode int, noNewPrivs bool) {
	for _, line := range strings.Split(status, "\n") {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "Seccomp":
			if n, err := strconv.Atoi(v); err == nil {
				seccompMode = n
			}
		case "NoNewPrivs":
			noNewPrivs = v == "1"
		}
	}
	return seccompMode, noNewPrivs
}
