//go:build !linux

package worker

import "os"

// unread: outside Linux the worker does not look into its stop pipe
// before its first run; a stop written before it is read once the run
// has begun, and ends the program at its next step (on macOS, the run's
// deadline still keeps a timed-out program from beginning).
func unread(*os.File) int { return 0 }
