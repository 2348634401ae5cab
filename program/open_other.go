//go:build !unix

package program

import "os"

// openFlags opens a program for reading.
const openFlags = os.O_RDONLY
