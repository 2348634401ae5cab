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
	socketsHanded  = seccomp.HandedSockets
)

// Brokered reports whether a worker held to p on Linux has its
// connections made by its supervisor (internal/broker): under any
// network, the budget's or one a granted module widened the policy to,
// of a policy that enforces something. Its filter then refuses every
// socket of its own (socketsHanded), and Landlock every TCP connect and
// bind.
func Brokered(p core.Policy) bool {
	return p.Enforced && (p.Network.Mode == core.NetHosts || p.Network.Mode == core.NetOpen)
}

// socketRuleOf returns how p's filter treats sockets: the sockets the
// supervisor hands in under a brokered network, none otherwise. A
// network mode this code does not know is treated as closed.
func socketRuleOf(p core.Policy) socketRule {
	if Brokered(p) {
		return socketsHanded
	}
	return socketsRefused
}

// seccompConfig is what p's filter for the worker pid depends on, where
// the Landlock ruleset applied is of ABI abi (0: none): below the ABI of
// the truncate right the filter refuses the truncations the kernel does
// not check against the ruleset there (seccomp.Config.TruncateRefused).
func seccompConfig(p core.Policy, pid, abi int) seccomp.Config {
	return seccomp.Config{Sockets: socketRuleOf(p), PID: pid,
		TruncateRefused: truncateRefused(abi)}
}

// truncateRefused reports whether a worker whose Landlock ruleset is of
// ABI abi (0: none) has its filter refuse truncation: below the ABI of
// the truncate right.
func truncateRefused(abi int) bool { return abi < landlockABITruncate }

// seccompFilter builds p's allow-list filter for the worker pid on a,
// where the Landlock ruleset applied is of ABI abi, as the kernel loads
// it: what installSeccomp installs, and a test reads or runs in the
// interpreter on any OS.
func seccompFilter(p core.Policy, pid, abi int, a arch) ([]bpf.RawInstruction, error) {
	ins, err := seccomp.Program(seccompConfig(p, pid, abi), a)
	if err != nil {
		return nil, fmt.Errorf("confine: %w", err)
	}
	raw, err := seccomp.Assemble(ins)
	if err != nil {
		return nil, fmt.Errorf("confine: %w", err)
	}
	return raw, nil
}

// MaxDescriptors is the most descriptors a worker with a filter holds at
// once (RLIMIT_NOFILE, soft and hard), set just before the filter, which
// refuses setrlimit and a prlimit64 that sets. Each descriptor holds
// kernel memory no memory limit counts, and can put a watch in the Go
// runtime's poller, charged to a quota every process of the worker's user
// shares (fs.epoll.max_user_watches): under the host's limit (20,000 on
// the machine it was seen on, a million in some containers) a confined
// program put 19,986 copies of one descriptor there, a watch each.
const MaxDescriptors = 4096

// MaxThreads, beside one for each of the machine's processors, is the
// most threads a worker may run: its supervisor reads the worker's count
// from outside while a run is in it, and stops a worker past it (E310).
// The filter lets a worker make threads (clone with CLONE_THREAD and
// CLONE_FILES), and a program that makes raw system calls made 3,000, 16
// KiB of the kernel's memory each that no memory limit counts, each an id
// of the machine's (kernel.pid_max): 32,768 of them leave no process of
// the machine able to start another.
const MaxThreads = 1024
