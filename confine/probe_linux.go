//go:build linux

package confine

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Machine is what this machine offers for confinement, as `sabline doctor`
// reports it. Probe reads it without confining anything.
type Machine struct {
	Kernel       string `json:"kernel"`
	LandlockABI  int    `json:"landlock_abi"`
	LandlockNote string `json:"landlock_note,omitempty"`
	Seccomp      bool   `json:"seccomp"`
	SeccompNote  string `json:"seccomp_note,omitempty"`
	// SeccompMode and NoNewPrivs are this process's own state: a filter
	// or no_new_privs already set by a container or a parent.
	SeccompMode int  `json:"seccomp_mode"`
	NoNewPrivs  bool `json:"no_new_privs"`
}

// Probe reads what this machine offers.
func Probe() Machine {
	var m Machine
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	if abi, err := LandlockABI(); err != nil {
		m.LandlockNote = err.Error()
	} else {
		m.LandlockABI = abi
	}
	// PR_GET_SECCOMP fails with EINVAL on a kernel built without seccomp.
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		m.SeccompNote = "prctl(PR_GET_SECCOMP): " + err.Error()
	} else {
		m.Seccomp = true
	}
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			k, v, _ := strings.Cut(line, ":")
			switch k {
			case "Seccomp":
				m.SeccompMode = int(strings.TrimSpace(v)[0] - '0')
			case "NoNewPrivs":
				m.NoNewPrivs = strings.TrimSpace(v) == "1"
			}
		}
	}
	return m
}

// OnThisMachine is the confinement a run under p would get here, from
// what Probe finds, without applying anything. A run's receipt says what
// was actually held.
func OnThisMachine(p Policy) Result {
	if !p.Enforced {
		return offResult(p)
	}
	m := Probe()
	held := LinuxHeld{LandlockABI: min(m.LandlockABI, LandlockMaxABI), Seccomp: m.Seccomp}
	if m.LandlockABI == 0 {
		held.Problems = append(held.Problems, "this kernel has no Landlock ("+m.LandlockNote+"): reads and writes are held by the language alone")
	}
	for _, dir := range append(append([]string{}, p.Read.Paths...), p.Write.Paths...) {
		if _, err := os.Stat(dir); err != nil {
			held.Missing = append(held.Missing, dir)
		}
	}
	return AssessLinux(p, held)
}
