//go:build !unix

package wire

import "os"

// StopSignal: a Windows worker has no signal to be asked to stop with; at
// its deadline it is ended at once.
func StopSignal() (sig os.Signal, ok bool) { return nil, false }
