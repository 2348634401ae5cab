//go:build !unix

package wire

import "os"

// StopSignal: a Windows worker has no signal to be asked to stop with; at
// its deadline it is ended at once.
func StopSignal() (sig os.Signal, ok bool) { return nil, false }

// MonotonicNow: a worker with no stop signal is ended at its deadline at
// once, and needs no deadline of its own (Request.Deadline).
func MonotonicNow() (ns int64, ok bool) { return 0, false }
