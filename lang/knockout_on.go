//go:build sabline_knockout

package lang

import (
	"os"

	"github.com/sabline/sabline/budget"
)

// The knock-out build's twin of knockout_off.go: every one of the
// language's own holds on a run lets everything through, so that only the
// kernel holds it. Nothing else in this package differs between the
// builds.

// find charges no grant and refuses nothing: every effect passes the
// budget.
func (in *Interp) find(budget.Effect) (int, error) { return -1, nil }

// refusesLinksIn is false: links in /proc are followed as the kernel
// follows them.
func refusesLinksIn(dirFD) bool { return false }

// inProcess is false: a process's own files in /proc are reached as any
// other path.
func (w *walker) inProcess(string) bool { return false }

// isOwn is false: the run's own standard descriptors' files are opened by
// a path as any other file.
func (t *fsTree) isOwn(*os.File) bool { return false }

// refusedAsWritten is nil: a failed walk is told as the system's answer,
// never judged on the path as written.
func (in *Interp) refusedAsWritten(budget.Access, string, error) error { return nil }

// judgeEntry refuses no entry in a directory that holds a guarded location.
func (in *Interp) judgeEntry(*walker) error { return nil }

// judgeAlias refuses no other name of a guarded location.
func (in *Interp) judgeAlias(*walker, string, int) error { return nil }

// judgeDevice refuses no device.
func (in *Interp) judgeDevice(string, os.FileMode, int) error { return nil }

// The checks the functions above stand in for, which this build compiles
// and never calls: named here so that it is vetted and linted as the
// ordinary build is, with no check left unused.
var _ = []any{
	(*Interp).findGrant,
	onProcfs,
	(*walker).onProcessFiles,
	(*fsTree).openOnOwn,
	(*Interp).asWritten,
	(*Interp).guardEntry,
	(*Interp).guardDevice,
	(*Interp).guardAlias,
}
