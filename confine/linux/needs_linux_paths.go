package linux

import (
	"slices"

	"github.com/sabline/sabline/confine/core"
)

// The paths a Linux machine keeps the interpreter's needs at. A path that
// does not exist on a machine is skipped when a ruleset is applied.
var (
	linuxTZData   = []string{"/usr/share/zoneinfo", "/etc/localtime"}
	linuxTLSRoots = []string{"/etc/ssl/certs", "/etc/ssl/cert.pem", "/etc/pki/tls/certs",
		"/etc/pki/tls/cacert.pem",
		"/etc/pki/ca-trust/extracted/pem", "/etc/ssl/ca-bundle.pem", "/etc/ca-certificates",
		"/usr/share/ca-certificates"}
)

// ResolverFiles are the files a name lookup reads on a Linux machine. A
// confined worker reads none of them: its supervisor looks names up for
// it (Brokered), so the supervisor's process is the one that needs them.
var ResolverFiles = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
	"/etc/gai.conf", "/etc/host.conf"}

// LinuxNeeds resolves the needs p names (core.NeedTLSRoots; the time zone
// data always) to the paths a Linux machine keeps them at, with the
// executable exe and the run's temporary directory tempDir. The resolver's
// files are not among them whatever p names: a worker under a net grant
// looks no name up (Brokered). It is pure: the worker applies what it
// returns, and a server that holds itself before it starts workers holds
// at least as much.
func LinuxNeeds(p core.Policy, exe, tempDir string) core.Needs {
	n := core.Needs{Executable: exe, TempDir: tempDir, TZData: linuxTZData}
	if slices.Contains(p.Interpreter, core.NeedTLSRoots) {
		n.TLSRoots = linuxTLSRoots
	}
	return n
}
