//go:build unix

package program

import (
	"os"
	"syscall"
)

// openFlags opens a program without waiting: a named pipe in its place
// opens at once, to be refused as no regular file, rather than holding
// the reader until a writer comes. On a regular file, O_NONBLOCK changes
// nothing, and Go's os package, finding the flag set, spares the calls
// that would set it and set it back.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
