package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTryLock: a journal's lock is held by one holder at a time, in this
// process too, and taken again once let go; Owner names the holder, and
// reads nothing but a short printable line of whatever the file holds.
func TestTryLock(t *testing.T) {
	dir := t.TempDir()
	l, err := TryLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second TryLock: %v, want ErrLocked", err)
	}
	if got := Owner(dir); !strings.HasPrefix(got, "pid ") {
		t.Errorf("Owner = %q, want the holder's pid", got)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := TryLock(dir)
	if err != nil {
		t.Fatalf("TryLock once let go: %v", err)
	}
	l2.Unlock()
	other, err := TryLockName(dir, "ship.lock")
	if err != nil {
		t.Fatalf("a lock of another name: %v", err)
	}
	other.Unlock()

	for _, junk := range []string{"pid 1\x1b[2J\n", strings.Repeat("x", 10000)} {
		if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(junk), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := Owner(dir); len(got) > maxOwnerBytes || strings.ContainsAny(got, "\x1b\n") {
			t.Errorf("Owner of %.20q = %.40q, want a short printable line or nothing", junk, got)
		}
	}
}
