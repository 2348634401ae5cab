package linux

import (
	"slices"
	"testing"

	"github.com/sabline/sabline/confine/core"
)

// TestLinuxNeedsOperatorTLSRoots: under a net grant the TLS roots are the
// system's places and, marked as the operator's (held as a grant is), the
// absolute paths SSL_CERT_FILE and SSL_CERT_DIR name, as Go's crypto/x509
// reads them; a relative one of either (the worker's working directory is
// not its server's) is left out, and so is every one where the policy needs no
// roots (the control).
func TestLinuxNeedsOperatorTLSRoots(t *testing.T) {
	t.Setenv("SSL_CERT_FILE", "/opt/corp/ca.pem")
	t.Setenv("SSL_CERT_DIR", "/opt/corp/certs:certs:/srv/roots")
	net := core.Policy{Interpreter: []string{core.NeedTZData, core.NeedTLSRoots}}
	n := LinuxNeeds(net, "/bin/sabline", "/tmp/run")
	want := []string{"/opt/corp/ca.pem", "/opt/corp/certs", "/srv/roots"}
	if !slices.Equal(n.TLSRoots, linuxTLSRoots) || !slices.Equal(n.OperatorTLSRoots, want) {
		t.Fatalf("TLS roots %q and the operator's %q, want %q and %q", n.TLSRoots,
			n.OperatorTLSRoots, linuxTLSRoots, want)
	}
	var operator []string
	for _, np := range core.NeedPaths(net, n) {
		if np.Operator {
			operator = append(operator, np.Path)
		} else if slices.Contains(want, np.Path) {
			t.Errorf("%s is a need of Sabline's own, want the operator's", np.Path)
		}
	}
	if !slices.Equal(operator, want) {
		t.Errorf("the operator's need paths %q, want %q", operator, want)
	}
	// A relative SSL_CERT_FILE, the only one named: left out, as the
	// directory of SSL_CERT_DIR is (crypto/x509 would read it in the
	// worker's working directory, which is not its server's).
	t.Setenv("SSL_CERT_FILE", "ca.pem")
	t.Setenv("SSL_CERT_DIR", "")
	if n := LinuxNeeds(net, "/bin/sabline", "/tmp/run"); n.OperatorTLSRoots != nil {
		t.Errorf("a relative SSL_CERT_FILE: the operator's roots %q, want none", n.OperatorTLSRoots)
	}
	if n := LinuxNeeds(core.Policy{Interpreter: []string{core.NeedTZData}}, "/bin/sabline",
		"/tmp/run"); n.TLSRoots != nil || n.OperatorTLSRoots != nil {
		t.Fatalf("a policy that needs no roots got %q, %q", n.TLSRoots, n.OperatorTLSRoots)
	}
}
