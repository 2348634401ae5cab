package run

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/receipt"
)

// TestRunMakesNothingOthersMayWrite: under an operator's umask of 0, a
// run under --confine strict makes, by raw calls, a directory with mode
// 0777 and a file with mode 0666 in its granted directory. They were made
// so, writable by every user of the machine (another user put a file in
// the one and wrote in the other, for the operator's next run to read),
// where the language makes 0755 and 0644. The worker's umask now keeps
// group and others' write: 0755 and 0644. The controls: the narrower
// modes a run asks for (0700, 0600) are kept as asked, and the language's
// own directory and file are 0755 and 0644. The supervisor is this test's
// binary, run again with the umask at 0, which no other test then shares.
func TestRunMakesNothingOthersMayWrite(t *testing.T) {
	if os.Getenv(testkit.OwnProcessEnv) == "" {
		testkit.Rerun(t, "umask 0", nil)
		return
	}
	syscall.Umask(0)
	const prog = `c = ffi.module("ctypes")
out = ARGS[0]
for name, dir, file in [("wide", 0o777, 0o666), ("narrow", 0o700, 0o600)]:
    m = c.syscall("mkdirat", -100, out + "/" + name + "-dir", dir)
    f = c.syscall("openat", -100, out + "/" + name + "-file", 0o101, file)  # O_WRONLY|O_CREAT
    print("%s: mkdirat errno=%s openat errno=%s" % (name, m.errno, f.errno))
fs.mkdir(out + "/lang-dir")
fs.write(out + "/lang-file", "x")
`
	var out string
	s := superviseProgram(t, prog, []string{"io", "ffi:ctypes", "fs:write:out"}, func(r *Run) {
		out = filepath.Join(r.Cwd, "out")
		r.Args = []string{out}
		r.Confine = core.ModeStrict
	})
	t.Logf("outcome %s %s %q at %s, stdout %q", s.rec.Outcome.Status, s.rec.Outcome.Code,
		s.rec.Outcome.Message, s.rec.Confinement().Level, s.stdout)
	if s.rec.Outcome.Status != receipt.StatusOK || strings.Count(s.stdout, "errno= openat errno=\n") != 2 {
		t.Fatalf("outcome %+v, stdout %q, stderr %s: want each call made", s.rec.Outcome, s.stdout,
			s.stderr)
	}
	for name, want := range map[string]fs.FileMode{
		"wide-dir": fs.ModeDir | 0o755, "wide-file": 0o644,
		"narrow-dir": fs.ModeDir | 0o700, "narrow-file": 0o600,
		"lang-dir": fs.ModeDir | 0o755, "lang-file": 0o644,
	} {
		fi, err := os.Lstat(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v", name, fi.Mode())
		if fi.Mode() != want {
			t.Errorf("%s is %v, want %v", name, fi.Mode(), want)
		}
	}
}
