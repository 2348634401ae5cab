//go:build !linux

package wire

import "os"

// Unread: outside Linux no one looks into a pipe for what it holds (0).
// A worker reads a stop written before its run once the program has
// begun, and ends it at its next step (on macOS the run's deadline, read
// from the clock the supervisor shares, still keeps a program past it
// from beginning; a Windows worker has no such deadline).
func Unread(*os.File) int { return 0 }
