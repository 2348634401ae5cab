package testkit

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// LinkBeside makes, in a directory of t's own (its links resolved), the
// directories sub and beside, and link, a link to beside: what a test
// exchanges with sub (Exchanging), so that sub names now the granted
// directory, now a link to the one beside it that no grant names.
func LinkBeside(t testing.TB) (sub, beside, link string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub, beside, link = filepath.Join(base, "sub"), filepath.Join(base, "beside"),
		filepath.Join(base, "link")
	for _, d := range []string{sub, beside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(beside, link); err != nil {
		t.Fatal(err)
	}
	return sub, beside, link
}

// Exchanging exchanges the entries a and b, again and again, in a
// goroutine of its own (renameat2 RENAME_EXCHANGE: each name always
// names one of the two), until stop is called, which waits for the last
// exchange and returns how many were made; the test's end calls it too.
func Exchanging(t testing.TB, a, b string) (stop func() int64) {
	var done atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b,
				unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange %s and %s: %v", a, b, err)
				return
			}
			swaps.Add(1)
		}
	})
	stop = func() int64 {
		done.Store(true)
		wg.Wait()
		return swaps.Load()
	}
	t.Cleanup(func() { stop() })
	return stop
}
