// Package testkit holds the few helpers the tests share: scratch
// directories with their links resolved, files written with their
// directories, the check of a coded error, the bound of a wait scaled to
// how loaded the machine is (Patience), the user's files kept apart
// (RunApart), and a test run again in a process of its own (Rerun).
// It is imported by tests only.
//
// # Packages beneath it
//
// Every helper the tests share lives here or beneath it: buildbin builds
// the sabline binary once per test binary; fleettest runs a fleet of
// servers against a bucket; goldenfile compares output with a committed
// file; proc reads another process's state from /proc; nohandover is an
// embedding program that skips sabline.HandOver, for the test that shows
// what that costs.
package testkit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sabline/sabline/codes"
)

// Scratch returns a new scratch directory with links in its path resolved,
// so that the paths the tests expect are the paths the interpreter checks.
func Scratch(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// WriteFile writes data to path, making its directory.
func WriteFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WantError checks that err is a *codes.Error with the code and the
// position, and that its message holds every one of msgs.
func WantError(t testing.TB, err error, code codes.Code, pos string, msgs ...string) {
	t.Helper()
	var e *codes.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want an *Error with code %s", err, err, code)
	}
	if e.Code != code {
		t.Errorf("code %s (%v), want %s", e.Code, e, code)
	}
	if e.Pos != pos {
		t.Errorf("position %q, want %q", e.Pos, pos)
	}
	for _, m := range msgs {
		if !strings.Contains(e.Msg, m) {
			t.Errorf("message %q does not name %q", e.Msg, m)
		}
	}
}

// LockedBuffer is a buffer a process or a run writes from one goroutine
// while the test reads it from another.
type LockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

// Write appends p.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
