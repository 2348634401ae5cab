package run

import (
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

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/testkit/nobody"
)

// modesChildEnv names the part the child of
// TestTempDirRemovedWhateverItsModes runs, as nobody: "run" or "sweep",
// a colon, and the mode (octal) of the directory made beneath the run's.
const modesChildEnv = "SABLINE_TEST_TEMPDIR_MODES"

// TestTempDirRemovedWhateverItsModes: a run under --confine strict makes,
// by raw calls, a directory in its private temporary directory with mode
// 0300 (mkdirat(2) takes any mode) and a file of 1 MiB in it, and ends.
// Its supervisor, not root, could not list that directory (EACCES), so
// os.RemoveAll left the run's whole directory in the runs directory, and
// every later sweep failed on it too: each run could leave up to the
// directory's bound (512 MiB) for good. The supervisor now gives such a
// directory its owner's rights before it removes it, at a run's end and
// in the sweep of a killed supervisor's directory. The controls: the same
// with mode 0700, removed before as now. The supervisor is this test's
// binary, run again as nobody, where root's removal passes every mode.
func TestTempDirRemovedWhateverItsModes(t *testing.T) {
	if part := os.Getenv(modesChildEnv); part != "" {
		what, mode, _ := strings.Cut(part, ":")
		if what == "sweep" {
			sweepWithMode(t, mode)
		} else {
			runWithMode(t, mode)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root, to start the supervisor as another user (nobody): root removes a " +
			"directory whatever its mode")
	}
	dir := nobody.Dir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "run.test")
	testkit.CopyExecutable(t, exe, bin)
	for _, tc := range []struct{ name, part string }{
		{name: "a run's directory, one beneath it mode 0300", part: "run:300"},
		{name: "control: a run's directory, one beneath it mode 0700", part: "run:700"},
		{name: "a killed supervisor's directory swept, one beneath it mode 0300", part: "sweep:300"},
		{name: "control: a killed supervisor's directory swept, one beneath it mode 0700",
			part: "sweep:700"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own := filepath.Join(dir, strings.ReplaceAll(tc.part, ":", "-"))
			if err := os.Mkdir(own, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(own, nobody.Uid, nobody.Uid); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "-test.run=^TestTempDirRemovedWhateverItsModes$", "-test.v",
				"-test.count=1")
			cmd.Env = append(os.Environ(), modesChildEnv+"="+tc.part, "HOME="+own, "TMPDIR="+own,
				"SABLINE_TEST_APART=")
			cmd.Dir = own
			cmd.SysProcAttr = &syscall.SysProcAttr{
				Credential: &syscall.Credential{Uid: nobody.Uid, Gid: nobody.Uid}}
			out, err := cmd.CombinedOutput()
			t.Logf("the supervisor as nobody:\n%s", out)
			if err != nil || !strings.Contains(string(out), "--- PASS: TestTempDirRemovedWhateverItsModes") {
				t.Fatalf("the supervisor as nobody, %s: %v", tc.part, err)
			}
		})
	}
}

// runWithMode runs, under --confine strict, a program that makes a
// directory of mode (octal) in its private temporary directory and a file
// of 1 MiB in it, and fails when anything of the run's is left in the
// runs directory once Supervise returned.
func runWithMode(t *testing.T, mode string) {
	const prog = `c = ffi.module("ctypes")
tmp = ffi.module("os").getenv("TMPDIR")
m = c.syscall("mkdirat", -100, tmp + "/keep", int(ARGS[0], 8))
f = c.syscall("openat", -100, tmp + "/keep/f", 66, 384)  # O_RDWR|O_CREAT, 0600
n = c.syscall("ftruncate", f.ret, 1 << 20)
print("mkdirat errno=%s openat errno=%s ftruncate errno=%s" % (m.errno, f.errno, n.errno))
`
	runs, err := runsDir()
	if err != nil {
		t.Fatal(err)
	}
	s := superviseProgram(t, prog, []string{"io", "ffi:ctypes", "ffi:os"}, func(r *Run) {
		r.Args = []string{mode}
		r.Confine = core.ModeStrict
	})
	t.Logf("outcome %s %s %q at %s, stdout %q", s.rec.Outcome.Status, s.rec.Outcome.Code,
		s.rec.Outcome.Message, s.rec.Confinement().Level, s.stdout)
	if !strings.Contains(s.stdout, "mkdirat errno= openat errno= ftruncate errno=\n") {
		t.Fatalf("stdout %q, stderr %s: want each call made", s.stdout, s.stderr)
	}
	left := leftIn(t, runs)
	if len(left) != 0 {
		t.Fatalf("left in the runs directory once the run ended: %q", left)
	}
}

// sweepWithMode leaves, as a supervisor killed outright would, a run's
// directory holding a directory of mode (octal) with a file in it, and
// fails unless the sweep removes it.
func sweepWithMode(t *testing.T, mode string) {
	perm, err := strconv.ParseUint(mode, 8, 32)
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	stale := filepath.Join(parent, tempPrefix+"killed")
	keep := filepath.Join(stale, "keep")
	if err := os.MkdirAll(keep, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keep, "f"), []byte("left"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(keep, fs.FileMode(perm)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { leftIn(t, parent) }) // before TempDir's removal, which fails as stale did
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	removed := sweepTempDirs(parent, time.Now())
	_, err = os.Lstat(stale)
	t.Logf("swept %q; %s after: %v", removed, stale, err)
	if len(removed) != 1 || removed[0] != stale || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the sweep removed %q, and %s is there (%v): want it removed", removed, stale, err)
	}
}

// leftIn returns the entries of runs named as a run's private temporary
// directory, and gives every directory beneath them their owner's rights
// again, so that the test's own removal of them does not fail.
func leftIn(t *testing.T, runs string) []string {
	t.Helper()
	ents, err := os.ReadDir(runs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		left = append(left, e.Name())
		_ = filepath.WalkDir(filepath.Join(runs, e.Name()),
			func(path string, d fs.DirEntry, err error) error {
				if d != nil && d.IsDir() {
					_ = os.Chmod(path, 0o700)
				}
				return nil
			})
	}
	return left
}
