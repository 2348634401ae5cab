//go:build !linux

package escape

import (
	"errors"
	"os"
	"syscall"
)

const oNonblock = 0

// KeptXattr is the extended attribute every scratch world's
// $OUTSIDE/secret.txt carries on Linux.
const KeptXattr = "user.sabline-escape-kept"

func markScratch(*Scratch) error { return nil }

// makeObject makes nothing off Linux, where the targets that name kernel
// objects cannot make their raw calls: it returns a name nothing bears.
func (s *Scratch) makeObject(p string) (string, error) {
	switch p {
	case "$MQ", "$MQNEW", "$KEYDESC":
		return "sabline-escape-unmade", nil
	case "$IPCKEY":
		return "0", nil
	}
	return "", errors.New("unknown placeholder")
}

func (s *Scratch) kernelObjects(State) error { return nil }

func (s *Scratch) victimState() string {
	select {
	case <-s.exited:
		return "alive=no"
	default:
		return "alive=yes"
	}
}

func (s *Scratch) removeObjects() {}

// watchPriority watches nothing off Linux, where no /proc tells a
// process's priority and the targets that name the witness cannot make
// their raw calls.
func (s *Scratch) watchPriority() error { return nil }

// inodeOf finds no pipe inode where there is no /proc to find holders in.
func inodeOf(*os.File) uint64 { return 0 }

// killHolders does nothing off Linux: the holders of a pipe are found in
// /proc. The process group kill still ends what stayed in the group.
func killHolders(...uint64) {}

// victimDying reports false: off Linux nothing says a signal is on its
// way, and the victim is judged as it is when the run ends.
func (s *Scratch) victimDying() bool { return false }

// Dying says nothing off Linux (known is false): no /proc tells whether a
// signal is on its way to the process pid.
func Dying(pid int) (dying, known bool) { return false, false }

// shareable sets nothing off Linux, where the targets that name $SHARED
// cannot make their raw calls.
func shareable(string, string, syscall.RawConn) error { return nil }
