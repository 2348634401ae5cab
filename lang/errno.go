package lang

import (
	"errors"
	"strings"
	"syscall"

	"github.com/sabline/sabline/confine"
)

// RefusedBy returns the applied layers that may have refused with err's
// errno, as confine.Refusals gives them for this system: on Linux,
// Landlock answers EACCES (a file, a TCP port), EXDEV (a rename into
// another directory) and, from its scopes' ABI, EPERM (a signal or an
// abstract Unix socket outside the run); seccomp answers EPERM, or ENOSYS
// and EPROTONOSUPPORT for the calls it answers so; and a call that needs a
// capability the worker gave up fails with EPERM. When more than one layer
// is returned, the errno does not tell which of them refused: the filter
// runs first, at the call's entry, but an EPERM may as well come from a
// check the call meets after it (LayerList says so). It returns nil when
// err is not such a refusal, nothing was applied, or this system has no
// confinement.
func RefusedBy(err error, applied []string) []string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return nil
	}
	sys, ok := confine.ThisSystem()
	if !ok {
		return nil
	}
	return confine.RefusingLayers(sys, ErrnoName(errno), applied)
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
