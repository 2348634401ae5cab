//go:build windows

package confine

import (
	"testing"

	"golang.org/x/sys/windows"
)

// TestRefusalCodesAreWindowsErrors: every Windows line's number is the
// error x/sys/windows names so.
func TestRefusalCodesAreWindowsErrors(t *testing.T) {
	want := map[string]windows.Errno{
		"ERROR_ACCESS_DENIED":      windows.ERROR_ACCESS_DENIED,
		"WSAEACCES":                windows.WSAEACCES,
		"ERROR_NOT_ENOUGH_QUOTA":   windows.ERROR_NOT_ENOUGH_QUOTA,
		"ERROR_PRIVILEGE_NOT_HELD": windows.ERROR_PRIVILEGE_NOT_HELD,
	}
	for _, r := range refusals {
		if r.System != Windows {
			continue
		}
		w, ok := want[r.Errno]
		if !ok || uint32(w) != r.Code {
			t.Errorf("%s is %d in the table; x/sys/windows says %d (known %v)", r.Errno, r.Code, uint32(w), ok)
		}
	}
}
