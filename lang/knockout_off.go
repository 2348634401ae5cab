//go:build !sabline_knockout

package lang

import (
	"os"

	"github.com/sabline/sabline/budget"
)

// The language's own holds on a run, which the knock-out build switches
// off. A binary built with -tags sabline_knockout (program.Knockout)
// compiles knockout_on.go in place of this file, in which each function
// below lets everything through, so that only the kernel holds the run:
// the conformance suites use it to prove the kernel alone holds each
// cell. These are all it switches off in this package, and the paths that
// hold a run call through them alone; here each is the check itself.

// find returns the grant that would be charged for e, without charging
// it, or the refusal (findGrant).
func (in *Interp) find(e budget.Effect) (int, error) { return in.findGrant(e) }

// refusesLinksIn reports whether a walk refuses to follow any link in the
// directory d (errMagic): d is a directory of /proc.
func refusesLinksIn(d dirFD) bool { return onProcfs(d) }

// inProcess reports whether the walk stands, at path, on a process's own
// files in /proc (onProcessFiles), which are refused whatever the grant.
func (w *walker) inProcess(path string) bool { return w.onProcessFiles(path) }

// isOwn reports whether f is open on the run's own standard descriptors'
// files (openOnOwn), which are refused by a path whatever the grant.
func (t *fsTree) isOwn(f *os.File) bool { return t.openOnOwn(f) }

// refusedAsWritten is the refusal of an effect whose walk failed with err,
// judged on the program's path p as written (asWritten), or nil.
func (in *Interp) refusedAsWritten(access budget.Access, p string, err error) error {
	return in.asWritten(access, p, err)
}

// judgeEntry refuses an entry made in, or removed from, a directory that
// holds a guarded location (guardEntry).
func (in *Interp) judgeEntry(w *walker) error { return in.guardEntry(w) }

// judgeAlias refuses an effect that reached a guarded location by another
// name than its own (guardAlias), under the grant i, at here.
func (in *Interp) judgeAlias(w *walker, here string, i int) error { return in.guardAlias(w, here, i) }

// judgeDevice refuses a device no grant reaches, at here, whatever the
// grant i (guardDevice).
func (in *Interp) judgeDevice(here string, mode os.FileMode, i int) error {
	return in.guardDevice(here, mode, i)
}
