package doorcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/guard"
	"github.com/sabline/sabline/internal/testkit"
)

// The variables that make this test binary, run by
// TestRegisterKeptFromAnotherMountNamespace in a mount namespace of its
// own, the other Sabline: it hides nsHideEnv's directory under a tmpfs,
// then runs nsBinEnv's sabline in nsWorkEnv, with a store of its own,
// joining the register nsRegEnv names (the test binary's own TestMain sets
// another).
const (
	nsHideEnv = "SABLINE_TEST_NS_HIDE"
	nsBinEnv  = "SABLINE_TEST_NS_BIN"
	nsWorkEnv = "SABLINE_TEST_NS_WORK"
	nsRegEnv  = "SABLINE_TEST_NS_REGISTER"
	// nsOlderEnv, set, makes the other Sabline one older than the holds
	// (olderPrune), in place of a run of this build.
	nsOlderEnv = "SABLINE_TEST_NS_OLDER"
)

// TestRegisterKeptFromAnotherMountNamespace: a Sabline started in a mount
// namespace of its own, where a tmpfs hides the directory of a server's
// store (as systemd's ProtectHome= or PrivateTmp= hide a home or /tmp),
// joins the register it shares with the server, with a store of its own.
// The server's store and token stay guarded: a command-line run beside
// the server, granted fs:read of the directory, is refused its token
// (E318), and the token's bytes are not printed; the same run reads a
// plain file beside the store (the control). Before, that Join found the
// server's store missing and removed its entries, and the run printed the
// token.
func TestRegisterKeptFromAnotherMountNamespace(t *testing.T) {
	keptFromAnotherNamespace(t, "^TestRegisterKeptFromAnotherMountNamespace$", false, false)
}

// TestRegisterKeptFromAnOlderSablinesPrune: the Sabline of the other
// mount namespace is one older than the holds, sharing the register
// during an upgrade: its prune removes the name of each entry whose path
// it does not see (olderPrune, as such a build's Join does), the server's
// store and token among them, and leaves the holds it does not know of.
// A run of this build beside the server still guards them: the token is
// refused (E318), the plain file beside it read (the control). Before,
// the run read the register's names alone and printed the token.
func TestRegisterKeptFromAnOlderSablinesPrune(t *testing.T) {
	keptFromAnotherNamespace(t, "^TestRegisterKeptFromAnOlderSablinesPrune$", true, false)
}

// TestRegisterKeepsAnOlderServersEntries: the server is one older than
// the holds, sharing the register during an upgrade: its entries are
// there and no view holds them (its holds removed after it started, as
// such a build never writes them). A Sabline of this build, in another
// mount namespace where the server's store is hidden, joins the register
// and prunes it: it leaves an entry no view holds that was written in
// this boot, which its older writer may still rely on. The token is
// refused (E318), the plain file beside it read (the control). Before,
// that Join removed the older server's entries, and a run of either
// build beside the server printed its token.
func TestRegisterKeepsAnOlderServersEntries(t *testing.T) {
	keptFromAnotherNamespace(t, "^TestRegisterKeepsAnOlderServersEntries$", false, true)
}

// keptFromAnotherNamespace is the test of a server's store and token
// kept guarded after a Sabline in another mount namespace, where they
// are hidden, joins the register: this build, or one older than the
// holds (olderJoins), started by running this test binary's test run.
// With olderServer, the server's entries are left as a build older than
// the holds writes them: held by no view.
func keptFromAnotherNamespace(t *testing.T, run string, olderJoins, olderServer bool) {
	if hide := os.Getenv(nsHideEnv); hide != "" {
		otherNamespace(t, hide)
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs in a mount namespace of its own takes root")
	}
	shared := testkit.NewRegister(t)
	t.Setenv(guard.RegisterEnv, shared) // the server's
	s := startServe(t)
	if olderServer {
		held := filepath.Join(shared, "u"+strconv.Itoa(os.Geteuid()), ".held")
		if err := os.RemoveAll(held); err != nil {
			t.Fatal(err)
		}
	}
	tokenFile := filepath.Join(s.rc, tokenFileName)
	hide := filepath.Dir(s.rc)
	plain := filepath.Join(hide, "plain.txt")
	if err := os.WriteFile(plain, []byte("plain words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	prog := filepath.Join(work, "read.vel")
	if err := os.WriteFile(prog, []byte("print(fs.read(ARGS[0]))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(p string) sablineRun {
		return runSabline(t, work, []string{guard.RegisterEnv + "=" + shared},
			"--receipts", filepath.Join(work, "receipts"), "--allow", "io,fs:read:"+hide, prog, "--", p)
	}

	ctx, cancel := context.WithTimeout(context.Background(), testkit.Bound(60*time.Second))
	defer cancel()
	other := exec.CommandContext(ctx, os.Args[0], "-test.run="+run, "-test.count=1", "-test.v")
	other.Env = append(os.Environ(), nsHideEnv+"="+hide, nsBinEnv+"="+sablineBin(t),
		nsWorkEnv+"="+t.TempDir(), nsRegEnv+"="+shared)
	if olderJoins {
		other.Env = append(other.Env, nsOlderEnv+"=1")
	}
	other.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := other.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "other namespace: joined") {
		t.Fatalf("the Sabline of another mount namespace: %v\n%s", err, out)
	}

	r := read(tokenFile)
	if r.exit == 0 || !strings.Contains(r.stderr, "E318") {
		t.Errorf("reading the server's token after the other namespace's Join: exit %d, stderr %q; "+
			"want it refused, E318", r.exit, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, s.token) {
		t.Errorf("the server's token was printed after the other namespace's Join")
	}
	if c := read(plain); c.exit != 0 || !strings.Contains(c.stdout, "plain words") {
		t.Errorf("control: reading %s: exit %d, stdout %q, stderr %q; want it read", plain, c.exit,
			c.stdout, c.stderr)
	}
}

// otherNamespace is the Sabline of another mount namespace: it hides the
// directory hide under a tmpfs, in this namespace alone, and runs sabline
// with a store of its own, which joins the register (and prunes it).
func otherNamespace(t *testing.T, hide string) {
	if err := syscall.Mount("tmpfs", hide, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Fatalf("hide %s: %v", hide, err)
	}
	if entries, err := os.ReadDir(hide); err != nil || len(entries) != 0 {
		t.Fatalf("%s under the tmpfs lists %v (%v), want nothing", hide, entries, err)
	}
	if os.Getenv(nsOlderEnv) != "" {
		sub := filepath.Join(os.Getenv(nsRegEnv), "u"+strconv.Itoa(os.Geteuid()))
		if n := olderPrune(t, sub); n == 0 {
			t.Fatalf("the older prune of %s removed no entry, want the server's", sub)
		}
		t.Log("other namespace: joined")
		return
	}
	work := os.Getenv(nsWorkEnv)
	prog := filepath.Join(work, "hello.vel")
	if err := os.WriteFile(prog, []byte("print(\"hello\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Getenv(nsBinEnv), "--receipts", filepath.Join(work, "receipts"),
		"--allow", "io", prog)
	cmd.Env = append(os.Environ(), guard.RegisterEnv+"="+os.Getenv(nsRegEnv))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "hello") {
		t.Fatalf("sabline in another mount namespace: %v\n%s", err, out)
	}
	t.Log("other namespace: joined")
}

// olderPrune is what the Join of a Sabline older than the holds did to
// this user's subdirectory sub of the register, in its own view: it
// removed the name of each entry whose path it did not find, holds or
// not (it passed over names beginning with "." and knew of none in
// them). It returns how many it removed.
func olderPrune(t *testing.T, sub string) int {
	names, err := os.ReadDir(sub)
	if err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, e := range names {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(sub, e.Name()))
		p, ok := strings.CutSuffix(string(data), "\n")
		if err != nil || !ok {
			continue
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) &&
			os.Remove(filepath.Join(sub, e.Name())) == nil {
			removed++
		}
	}
	return removed
}
