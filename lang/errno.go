package lang

import (
	"errors"
	"strconv"
	"strings"
	"syscall"

	"github.com/sabline/sabline/confine"
)

// landlockPrefix is what a Landlock layer's name has before its ABI.
var landlockPrefix = strings.TrimSuffix(confine.LayerLandlock(0), "0")

// RefusedBy returns the applied layers that may have refused with err's
// errno. On Linux, Landlock answers EACCES (a file, a TCP port) and, from
// ABI 6, EPERM (a signal or an abstract Unix socket outside the run);
// seccomp answers EPERM, or ENOSYS for the calls it answers so; and a call
// that needs a capability the worker gave up fails with EPERM. Elsewhere
// any applied layer may answer EACCES or EPERM. When more than one layer
// is returned, the errno does not tell which of them refused: the filter
// runs first, at the call's entry, but an EPERM may as well come from a
// check the call meets after it (LayerList says so). It returns nil when
// err is not such a refusal or nothing was applied.
func RefusedBy(err error, applied []string) []string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return nil
	}
	var out []string
	for _, l := range applied {
		switch {
		case strings.HasPrefix(l, confine.LayerLandlockFamily):
			abi, _ := strconv.Atoi(strings.TrimPrefix(l, landlockPrefix))
			if errno == syscall.EACCES || errno == syscall.EPERM && abi >= 6 {
				out = append(out, l)
			}
		case l == confine.LayerSeccomp:
			if errno == syscall.EPERM || errno == syscall.ENOSYS {
				out = append(out, l)
			}
		case l == confine.LayerCapabilities:
			if errno == syscall.EPERM {
				out = append(out, l)
			}
		case errno == syscall.EACCES || errno == syscall.EPERM:
			out = append(out, l)
		}
	}
	return out
}

// LayerList names the layers RefusedBy returned, as a message says them
// after "refused by": the layer, or "one of A, B; the errno does not tell
// which" when it does not.
func LayerList(layers []string) string {
	if len(layers) > 1 {
		return "one of " + strings.Join(layers, ", ") + "; the errno does not tell which"
	}
	return strings.Join(layers, ", ")
}
