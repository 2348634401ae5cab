package confine

import (
	"strconv"
	"strings"
)

// Machine is what this machine offers for confinement, as `sabline doctor`
// reports it. Probe reads it without confining anything.
type Machine struct {
	OS           string `json:"os"`
	Kernel       string `json:"kernel,omitempty"`
	LandlockABI  int    `json:"landlock_abi"`
	LandlockNote string `json:"landlock_note,omitempty"`
	Seccomp      bool   `json:"seccomp"`
	SeccompNote  string `json:"seccomp_note,omitempty"`
	// SeccompMode and NoNewPrivs are this process's own state: a filter
	// or no_new_privs already set by a container or a parent.
	SeccompMode int  `json:"seccomp_mode"`
	NoNewPrivs  bool `json:"no_new_privs"`
}

// Advice says, for each layer this machine lacks or limits, what is
// missing and what the operator can do about it.
func (m Machine) Advice() []string {
	var out []string
	switch m.OS {
	case "linux":
	case "darwin":
		return []string{"this build applies a sandbox profile here (sandbox_init, which Apple has deprecated): a run is partial at best, and its system calls have run only on the macOS leg of CI; for the kernel's full hold run untrusted programs on Linux"}
	case "windows":
		return []string{"this build applies a job object, a reduced token, a low integrity level and, where a budget allows, an AppContainer here; these system calls have run only on the Windows leg of CI; for the kernel's full hold run untrusted programs on Linux"}
	default:
		return []string{"this build of Sabline confines runs on Linux, macOS and Windows only: a run here is level none; run untrusted programs on Linux, or in a virtual machine"}
	}
	switch {
	case m.LandlockABI == 0:
		out = append(out, "Landlock is missing ("+m.LandlockNote+"): reads and writes are held by the language alone. Use a kernel from 5.13 with CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter")
	case m.LandlockABI < 3:
		out = append(out, "Landlock ABI "+strconv.Itoa(m.LandlockABI)+" cannot hold truncation: a write grant's neighbours may be truncated. Linux 6.2 offers ABI 3")
	case m.LandlockABI < 4:
		out = append(out, "Landlock ABI "+strconv.Itoa(m.LandlockABI)+" cannot hold TCP binds or ports: under a net grant a run may listen on a TCP port, and a net:HOST:PORT grant is held to IPv4 and IPv6 sockets only. Linux 6.7 offers ABI 4")
	}
	if !m.Seccomp {
		out = append(out, "seccomp is missing ("+m.SeccompNote+"): processes, signals, sockets and the kernel's other surfaces are not held. Use a kernel with CONFIG_SECCOMP_FILTER=y")
	}
	if m.SeccompMode == 2 {
		out = append(out, "this process already runs under a seccomp filter (a container's, say): Sabline adds its own, and what the outer one refuses stays refused")
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
