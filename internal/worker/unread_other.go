//go:build !linux

package worker

import "os"

// unread: outside Linux the worker does not look into its stop pipe as
// its run begins; a stop written before is read once the program has
// begun, and ends it at its next step (on macOS the run's deadline, read
// from the clock the supervisor shares, still keeps a program past it
// from beginning; a Windows worker has no such deadline).
func unread(*os.File) int { return 0 }
