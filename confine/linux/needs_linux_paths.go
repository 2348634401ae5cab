package linux

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// looks no name up (Brokered). It reads nothing but the environment's
// SSL_CERT_FILE and SSL_CERT_DIR (operatorTLSRoots), which a worker
// inherits from its supervisor as they are: the worker applies what it
// returns, and a server that holds itself before it starts workers holds
// at least as much.
func LinuxNeeds(p core.Policy, exe, tempDir string) core.Needs {
	n := core.Needs{Executable: exe, TempDir: tempDir, TZData: linuxTZData}
	if slices.Contains(p.Interpreter, core.NeedTLSRoots) {
		n.TLSRoots, n.OperatorTLSRoots = linuxTLSRoots, operatorTLSRoots(os.Getenv)
	}
	return n
}

// OperatorTLSRoots are the TLS roots this process's environment names
// (operatorTLSRoots), for the supervisor to admit as it admits the
// grants: a worker withholds one that resolves otherwise when it starts
// (Moved).
func OperatorTLSRoots() []string { return operatorTLSRoots(os.Getenv) }

// operatorTLSRoots are the TLS roots the operator names, which Go's
// crypto/x509 reads in place of the system's places: the file
// SSL_CERT_FILE names and each directory of SSL_CERT_DIR (":" between
// them), absolute paths only, as written. The worker keeps both variables
// (run's workerEnvKeep), so without a rule for them a confined https
// fetch found none of the roots its operator named. They are held as a
// grant is (core.NeedPath.Operator): an operator's SSL_CERT_DIR=/ reaches
// no store, token or device that no grant may reach.
func operatorTLSRoots(getenv func(string) string) []string {
	var out []string
	if f := getenv("SSL_CERT_FILE"); filepath.IsAbs(f) {
		out = append(out, f)
	}
	if d := getenv("SSL_CERT_DIR"); d != "" {
		for _, dir := range strings.Split(d, ":") {
			if filepath.IsAbs(dir) {
				out = append(out, dir)
			}
		}
	}
	return out
}
