// Package nobody gives a test that starts a child as another user
// (nobody, uid 65534, as root may) a directory that user can reach: the
// directory and every one above it searchable by others. A test's own
// temporary directory lies beneath TMPDIR, which may be private (mode
// 0700, as a per-user TMPDIR is): a child as nobody could then reach
// nothing of it, and the test would fail for where it ran, not for what
// it tests.
package nobody

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns a new directory, mode 0755, that every user can reach,
// removed when the test ends: beneath the test's temporary directory
// where TMPDIR lets other users pass, else beneath the first of /var/tmp
// and /tmp that does. Where none does, the test is skipped, saying why.
func Dir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil { // the test's own directories
			t.Fatal(err)
		}
	}
	shut := closedAbove(dir)
	if shut == "" {
		return dir
	}
	for _, base := range []string{"/var/tmp", "/tmp"} {
		if closedAbove(filepath.Join(base, "x")) != "" {
			continue
		}
		d, err := os.MkdirTemp(base, "sabline-nobody-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { _ = os.RemoveAll(d) })
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	t.Skipf("other users cannot pass through %s, above the test's directory (TMPDIR), nor "+
		"through /var/tmp or /tmp: a child as nobody could reach nothing here", shut)
	return ""
}

// Uid is nobody's user and group id, the child's Credential.
const Uid = 65534

// Tmp makes, in dir (from Dir), a directory of nobody's own for the
// child's TMPDIR, and returns it.
func Tmp(t testing.TB, dir string) string {
	t.Helper()
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, Uid, Uid); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// closedAbove returns the first directory above path that other users
// cannot search (or that cannot be read), "" when there is none.
func closedAbove(path string) string {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}
