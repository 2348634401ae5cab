package testkit

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/guard"
)

// PrivateRegister sets guard.RegisterEnv, for this process and every
// process it starts, to a register of the tests' own in a new temporary
// directory, and returns what removes it: a store, token or runs
// directory the code under test makes joins that register, never the
// machine's. Call it from TestMain, before m.Run.
func PrivateRegister() (cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "sabline-register-")
	if err != nil {
		return nil, fmt.Errorf("testkit: a private register: %w", err)
	}
	reg, err := makeRegister(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("testkit: a private register: %w", err)
	}
	os.Setenv(guard.RegisterEnv, reg)
	return func() { os.RemoveAll(dir) }, nil
}

// registerName is the name of the register makeRegister makes.
const registerName = "guarded"

// makeRegister makes a register in dir, sticky and open to all, as the
// machine's is made, and returns its path.
func makeRegister(dir string) (string, error) {
	reg := filepath.Join(dir, registerName)
	if err := os.Mkdir(reg, 0o700); err != nil {
		return "", err
	}
	return reg, os.Chmod(reg, 0o777|fs.ModeSticky)
}

// NewRegister makes a register of the test's own, one to rely on, and
// returns its path.
func NewRegister(t *testing.T) string {
	t.Helper()
	reg, err := makeRegister(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// RegisterCase is a register a Sabline may not rely on, made by Make, and
// what the refusal says of it (WantWhy); "" for the control, one to rely
// on. RootOnly cases give a directory to another user.
type RegisterCase struct {
	Name     string
	Make     func(t *testing.T) string
	WantWhy  string
	RootOnly bool
}

// UntrustedRegisters are the registers no Sabline may rely on, and last
// the control.
var UntrustedRegisters = []RegisterCase{
	{Name: "a link", WantWhy: "is a link", Make: func(t *testing.T) string {
		reg := filepath.Join(t.TempDir(), "link")
		if err := os.Symlink(NewRegister(t), reg); err != nil {
			t.Fatal(err)
		}
		return reg
	}},
	{Name: "not sticky, another user's", WantWhy: "is not sticky", RootOnly: true,
		Make: func(t *testing.T) string {
			reg := filepath.Join(t.TempDir(), "loose")
			if err := os.Mkdir(reg, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(reg, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(reg, 12345, 12345); err != nil {
				t.Fatal(err)
			}
			return reg
		}},
	{Name: "sticky, another user's", WantWhy: "owned by uid 12345", RootOnly: true,
		Make: func(t *testing.T) string {
			reg := NewRegister(t)
			if err := os.Chown(reg, 12345, 12345); err != nil {
				t.Fatal(err)
			}
			return reg
		}},
	{Name: "control: sticky, ours", Make: NewRegister},
}

// The environment RunApart points at directories of the tests' own: the
// receipts store (receipt.DirEnv, which testkit cannot import: the
// receipt package's own tests import testkit), the cache, where runs
// keep their temporary directories, and the state directory, where the
// default store is when SABLINE_RECEIPTS is unset.
var apartEnv = []struct{ name, dir string }{
	{"SABLINE_RECEIPTS", "receipts"},
	{"XDG_CACHE_HOME", "cache"},
	{"XDG_STATE_HOME", "state"},
}

// apartDirEnv names the directory RunApart made, for the test binaries
// its tests start (a helper run of their own binary): such a child finds
// its environment apart already, in its parent's directory, and makes
// none of its own, which it could not remove when it ends by os.Exit or
// is killed.
const apartDirEnv = "SABLINE_TEST_APART"

// apartPrefix begins the name of each directory RunApart makes.
const apartPrefix = "sabline-test-"

// RunApart runs m's tests apart from the user's own files and returns
// their exit status: a register of their own, and the receipts store,
// the cache and the state directory (apartEnv), in one directory of
// theirs, removed once they end. Every process they start inherits it,
// so that no test, nor a binary it runs, writes a receipt, a cache or a
// run's directory where the user keeps theirs; a test binary among them
// runs its tests in that directory too (inherited). Call it from
// TestMain, as os.Exit(testkit.RunApart(m)).
func RunApart(m *testing.M) int {
	if inherited() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", apartPrefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testkit: a directory apart:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	keepGoCache()
	reg, err := makeRegister(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testkit: a private register:", err)
		return 1
	}
	for name, value := range apartEnviron(dir, reg) {
		os.Setenv(name, value)
	}
	return m.Run()
}

// apartEnviron is the environment RunApart sets for a directory apart,
// dir, and the register in it, reg.
func apartEnviron(dir, reg string) map[string]string {
	env := map[string]string{apartDirEnv: dir, guard.RegisterEnv: reg}
	for _, e := range apartEnv {
		env[e.name] = filepath.Join(dir, e.dir)
	}
	return env
}

// inherited reports whether this process's environment is apart already,
// as RunApart set it in a parent: apartDirEnv names a directory RunApart
// made (not a link), this user's alone (its owner, mode 0700), and every
// variable RunApart sets points where it would for that directory.
func inherited() bool {
	dir := os.Getenv(apartDirEnv)
	if !filepath.IsAbs(dir) || !strings.HasPrefix(filepath.Base(dir), apartPrefix) {
		return false
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 ||
		!ownedHere(fi) {
		return false
	}
	for name, value := range apartEnviron(dir, filepath.Join(dir, registerName)) {
		if os.Getenv(name) != value {
			return false
		}
	}
	return true
}

// keepGoCache sets GOCACHE, when it is not set, to the Go command's build
// cache as it is now: it is under the user's cache directory, which
// RunApart moves, and the binaries the tests build (buildbin) would
// otherwise be built anew, every package they import, in every test
// binary. The build cache is the Go command's, not Sabline's.
func keepGoCache() {
	if os.Getenv("GOCACHE") != "" {
		return
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if dir := strings.TrimSpace(string(out)); err == nil && filepath.IsAbs(dir) {
		os.Setenv("GOCACHE", dir)
	}
}
