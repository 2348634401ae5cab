package seccomp

import (
	"runtime"
	"sync"

	"github.com/sabline/sabline/internal/sysno"
)

//go:generate go run ./internal/gensummary

// Arch is a Linux system call ABI that a seccomp program is built for. The
// tables are plain data, present on every system, so that the program for
// any architecture can be built and read anywhere.
type Arch struct {
	// Name is the GOARCH of the ABI: "amd64" or "arm64".
	Name string
	// AuditArch is the AUDIT_ARCH_* value the kernel puts in
	// seccomp_data.arch for a call made through this ABI.
	AuditArch uint32
	// Table maps system call names to their numbers: sysno's table,
	// generated from golang.org/x/sys/unix, not to be changed.
	Table map[string]int
	// X32 is true when the kernel also takes x32 calls under the same
	// AuditArch: their numbers have bit 30 (0x40000000) set.
	X32 bool

	names map[int]string // Table reversed
}

// The audit architectures of the ABIs a program is built for.
const (
	auditArchX86_64  = 0xc000003e // AUDIT_ARCH_X86_64
	auditArchAArch64 = 0xc00000b7 // AUDIT_ARCH_AARCH64
)

// The system call ABIs Sabline builds seccomp programs for. Each is built
// on first use, not when the program starts: a process that builds no
// filter (the supervisor, a subcommand) never pays for the tables, and a
// worker builds only its own architecture's.
var (
	amd64Arch = sync.OnceValue(func() Arch { return newArch("amd64", auditArchX86_64, true) })
	arm64Arch = sync.OnceValue(func() Arch { return newArch("arm64", auditArchAArch64, false) })
)

func newArch(name string, audit uint32, x32 bool) Arch {
	table, _ := sysno.Table(name)
	names := make(map[int]string, len(table))
	for n, nr := range table {
		names[nr] = n
	}
	return Arch{Name: name, AuditArch: audit, Table: table, X32: x32, names: names}
}

// NativeArch returns the Arch of the running program's GOARCH, and false
// when Sabline has no table for it.
func NativeArch() (Arch, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return amd64Arch(), true
	case "arm64":
		return arm64Arch(), true
	}
	return Arch{}, false
}

// top is the highest number of the table.
func (a Arch) top() int {
	t := -1
	for _, nr := range a.Table {
		t = max(t, nr)
	}
	return t
}

// syscallName returns the name of system call nr, or "" when the table has
// none.
func (a Arch) syscallName(nr int) string {
	if a.names != nil {
		return a.names[nr]
	}
	for n, x := range a.Table {
		if x == nr {
			return n
		}
	}
	return ""
}
