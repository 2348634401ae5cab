//go:build !linux

package fleettest

import "time"

// CPU is the processor time the replicas have used so far; on this
// system it is not read (false).
func (f *Fleet) CPU() (time.Duration, bool) { return 0, false }
