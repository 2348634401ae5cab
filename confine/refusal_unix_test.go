//go:build linux || darwin

package confine

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRefusalNamesAreThisSystemsErrnos: every errno the table names for
// this system is one this system has, by the name golang.org/x/sys/unix
// gives it.
func TestRefusalNamesAreThisSystemsErrnos(t *testing.T) {
	sys, _ := ThisSystem()
	names := map[string]bool{}
	for e := syscall.Errno(1); e < 256; e++ {
		names[unix.ErrnoName(e)] = true
	}
	n := 0
	for _, r := range refusals {
		if r.System == sys {
			n++
			if !names[r.Errno] {
				t.Errorf("%s names %s, which is no errno here", r.Layer, r.Errno)
			}
		}
	}
	if n == 0 {
		t.Errorf("the table has no line for %s", sys)
	}
}
