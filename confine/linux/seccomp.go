package linux

import (
	"fmt"

	"golang.org/x/net/bpf"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/seccomp"
)

// arch is a Linux system call ABI with its table of call numbers, from
// package seccomp, which builds the worker's filter.
type arch = seccomp.Arch

// nativeArch returns the arch of the running program's GOARCH, and false
// when Sabline has no table for it.
func nativeArch() (arch, bool) { return seccomp.NativeArch() }

// socketRule is how a policy's seccomp filter treats sockets.
type socketRule = seccomp.Sockets

const (
	socketsRefused = seccomp.NoSockets
	socketsTCP     = seccomp.TCPSockets
	socketsUDP     = seccomp.TCPAndUDPSockets
)

// socketRuleOf returns how p's filter treats sockets: IPv4 and IPv6
// sockets of TCP only under any network, the budget's or one a granted
// module widened the policy to, UDP ones beside them only under a UDP
// grant, and none under a closed network. A net grant is TCP unless it
// says udp: the language resolves names over TCP, and Sabline's host
// modules that widen the policy to any host dial TCP and resolve names
// as the language does, so neither needs a datagram socket. A datagram
// socket would reach any host and port and bind any free port, which
// Landlock, holding TCP only, does not see. A Unix socket named by its
// path (which Landlock does not check on connect, and the worker's
// CAP_DAC_OVERRIDE opens whatever its mode) stays refused. A network
// mode this code does not know is treated as closed.
func socketRuleOf(p core.Policy) socketRule {
	switch p.Network.Mode {
	case core.NetHosts, core.NetOpen:
		if len(p.Network.UDP) > 0 {
			return socketsUDP
		}
		return socketsTCP
	}
	return socketsRefused
}

// seccompConfig is what p's filter for the worker pid depends on.
func seccompConfig(p core.Policy, pid int) seccomp.Config {
	return seccomp.Config{Sockets: socketRuleOf(p), PID: pid}
}

// seccompFilter builds p's allow-list filter for the worker pid on a, as
// the kernel loads it: what installSeccomp installs, and a test reads or
// runs in the interpreter on any OS.
func seccompFilter(p core.Policy, pid int, a arch) ([]bpf.RawInstruction, error) {
	ins, err := seccomp.Program(seccompConfig(p, pid), a)
	if err != nil {
		return nil, fmt.Errorf("confine: %w", err)
	}
	raw, err := seccomp.Assemble(ins)
	if err != nil {
		return nil, fmt.Errorf("confine: %w", err)
	}
	return raw, nil
}
