package run

import (
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/receipt"
)

// TestOperatorTLSRootsReachAConfinedFetch: a worker keeps SSL_CERT_FILE
// and SSL_CERT_DIR (workerEnvKeep), and a confined https fetch verifies
// with the roots they name. Its Landlock read only the system's places
// before: a loopback server whose root the operator named in either was
// refused, "certificate signed by unknown authority" (E315) at level
// full, where the same run under --no-confine got its page. The controls:
// under --no-confine the named root verifies the server, and with neither
// variable set the confined fetch is refused, the server's root being in
// no system place.
func TestOperatorTLSRootsReachAConfinedFetch(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello-tls")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the control's refused handshake
	srv.StartTLS()
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	roots := filepath.Join(t.TempDir(), "roots")
	if err := os.Mkdir(roots, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(roots, "ca.pem")
	block := &pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}
	if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	src := "r = net.http_get(" + strconv.Quote(srv.URL+"/") + ")\nprint(r.status, r.body)\n"
	allow := []string{"io", "net:127.0.0.1:" + u.Port()}
	for _, tt := range []struct {
		name      string
		file, dir string
		mode      core.Mode
		want      bool
	}{
		{name: "SSL_CERT_FILE", file: file, mode: core.ModeDefault, want: true},
		{name: "SSL_CERT_DIR", dir: "/nonexistent:" + roots, mode: core.ModeDefault, want: true},
		{name: "SSL_CERT_FILE unconfined (the control)", file: file, mode: core.ModeOff, want: true},
		{name: "neither (the control)", mode: core.ModeDefault},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SSL_CERT_FILE", tt.file)
			t.Setenv("SSL_CERT_DIR", tt.dir)
			s := superviseProgram(t, src, allow, func(r *Run) { r.Confine = tt.mode })
			if tt.mode != core.ModeOff {
				if lvl := s.rec.RunParameters.Confinement; lvl != core.Full {
					t.Errorf("level %s (%s), want full", lvl, s.rec.RunParameters.ConfinementReason)
				}
			}
			if !tt.want {
				wantCode(t, s, codes.E315, "unknown authority")
				return
			}
			if s.rec.Outcome.Status != receipt.StatusOK || s.stdout != "200 hello-tls\n" {
				t.Fatalf("outcome %+v, stdout %q, stderr %s", s.rec.Outcome, s.stdout,
					strings.TrimSpace(s.stderr))
			}
		})
	}
}

// rawMapAndPrint opens ARGS[0] with raw calls, prints the open's errno,
// and, where it opened, maps the file and writes its first 16 bytes to
// the standard output, where the supervisor reads them.
const rawMapAndPrint = `c = ffi.module("ctypes")
fd = c.syscall("openat", -100, ARGS[0], 0, 0)
print("open=%s" % fd.errno)
if fd.errno == "":
    m = c.syscall("mmap", 0, 4096, 1, 2, fd.ret, 0)  # PROT_READ, MAP_PRIVATE
    c.syscall("write", 1, m.ret, 16)
`

// TestOperatorTLSRootsReachNoGuardedLocation: a TLS root the operator's
// SSL_CERT_FILE names is held as a grant is, so that it reaches nothing
// no grant may: named in the run's own receipts store, or on procfs (the
// supervisor's command line), a raw-call program under --confine strict
// is refused its open, and the file's bytes never reach the supervisor
// (a need's rule let it map and print the store's file). The control: a
// root named in a directory of the test's own is opened, mapped and
// printed by the same program.
func TestOperatorTLSRootsReachNoGuardedLocation(t *testing.T) {
	if _, err := linux.LandlockABI(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	const content = "root-of-the-test" // 16 bytes
	store := filepath.Join(t.TempDir(), "receipts")
	own := t.TempDir()
	for _, dir := range []string{store, own} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ca.pem"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The first 16 bytes of this process's command line: its path.
	cmdline := "/proc/" + strconv.Itoa(os.Getpid()) + "/cmdline"
	self, err := os.ReadFile(cmdline)
	if err != nil || len(self) < 16 {
		t.Fatalf("read %s: %v (%d bytes)", cmdline, err, len(self))
	}
	allow := []string{"io", "ffi:ctypes", "net:127.0.0.1:9"}
	for _, tt := range []struct {
		name      string
		file      string
		content   string
		wantPrint bool
	}{
		{name: "in the run's receipts store", file: filepath.Join(store, "ca.pem"), content: content},
		{name: "on a kernel surface (the supervisor's command line)", file: cmdline,
			content: string(self[:16])},
		{name: "the control: in a directory of the test's own", file: filepath.Join(own, "ca.pem"),
			content: content, wantPrint: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			t.Setenv("SSL_CERT_FILE", file)
			t.Setenv("SSL_CERT_DIR", "")
			s := superviseProgram(t, rawMapAndPrint, allow, func(r *Run) {
				r.Confine, r.Args, r.Receipts = core.ModeStrict, []string{file}, store
				r.Guarded = []string{store} // as the command line guards its receipts
			})
			if lvl := s.rec.RunParameters.Confinement; lvl != core.Full {
				t.Fatalf("level %s (%s), want full", lvl, s.rec.RunParameters.ConfinementReason)
			}
			printed := strings.Contains(s.stdout, tt.content)
			if printed != tt.wantPrint {
				t.Fatalf("the root's bytes printed: %v, want %v; stdout %q, stderr %s", printed,
					tt.wantPrint, s.stdout, strings.TrimSpace(s.stderr))
			}
			if !tt.wantPrint && !strings.Contains(s.stdout, "open=EACCES") {
				t.Errorf("stdout %q, want the open refused by Landlock (EACCES)", s.stdout)
			}
		})
	}
}
