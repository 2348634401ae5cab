package confine

import "github.com/sabline/sabline/confine/seccomp"

// Arch is a Linux system call ABI with its table of call numbers, from
// package seccomp, which builds the worker's filter.
type Arch = seccomp.Arch

// NativeArch returns the Arch of the running program's GOARCH, and false
// when Sabline has no table for it.
func NativeArch() (Arch, bool) { return seccomp.NativeArch() }

// socketRule is how a policy's seccomp filter treats sockets.
type socketRule = seccomp.Sockets

const (
	socketsRefused = seccomp.NoSockets
	socketsInet    = seccomp.InetSockets
)

// socketRuleOf returns how p's filter treats sockets: IPv4 and IPv6
// sockets of TCP and UDP only under any network, the budget's or one a
// granted module widened the policy to, and none under a closed network.
// Sabline's host modules that widen the policy to any host dial TCP and
// resolve names over UDP or TCP, so a widening needs no other socket, and
// a Unix socket named by its path (which Landlock does not check on
// connect, and the worker's CAP_DAC_OVERRIDE opens whatever its mode)
// stays refused. A network mode this code does not know is treated as
// closed.
func socketRuleOf(p Policy) socketRule {
	switch p.Network.Mode {
	case NetHosts, NetOpen:
		return socketsInet
	}
	return socketsRefused
}

// seccompConfig is what p's filter for the worker pid depends on.
func seccompConfig(p Policy, pid int) seccomp.Config {
	return seccomp.Config{Sockets: socketRuleOf(p), PID: pid}
}
