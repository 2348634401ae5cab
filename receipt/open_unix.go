//go:build unix

package receipt

import "syscall"

// inPlaceFlags are the flags a receipt's reserved file is opened with to
// be written over: never through a link planted at its name, never
// waiting on a named pipe there.
const inPlaceFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
