package worker

import (
	"errors"
	"syscall"

	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/lang"
)

// refusal is the language's Refusal in a worker (lang.Config.Refusal): the
// name of err's errno, a Windows error by its winerror.h name as
// confine.Refusals spells it, and the layers of applied that may have
// refused with it on this system, as confine.Refusals gives them. On
// Linux, Landlock answers EACCES (a file, a TCP port), EXDEV (a rename
// into another directory) and, from its scopes' ABI, EPERM (a signal or
// an abstract Unix socket outside the run); seccomp answers EPERM, or
// ENOSYS and EPROTONOSUPPORT for the calls it answers so; and a call that
// needs a capability the worker gave up fails with EPERM. When more than
// one layer is returned, the errno does not tell which of them refused
// (lang.LayerList says so). No layers when err carries no errno, nothing
// was applied, or this system has no confinement.
func refusal(err error, applied []string) (string, []string) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return "", nil
	}
	name := lang.ErrnoName(errno)
	sys, ok := confine.ThisSystem()
	if !ok {
		return name, nil
	}
	if n, ok := confine.WindowsErrnoName(uint32(errno)); ok && sys == confine.Windows {
		name = n
	}
	return name, confine.RefusingLayers(sys, name, applied)
}

// judgeBy is refusal with the layers applied fixed: the judge
// fault.Attempt takes.
func judgeBy(applied []string) func(error) (string, []string) {
	return func(err error) (string, []string) { return refusal(err, applied) }
}
