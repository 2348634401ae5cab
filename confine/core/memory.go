package core

import "errors"

// ErrCallerMemoryLimit wraps what a worker's address-space limit says
// when the limit it inherited from its caller (ulimit -v, a unit's
// LimitAS) is below the one the run's memory limit sets: the caller's is
// kept, and holds the worker more tightly than the run asks (an
// allocation past it ends the run, E308). Sabline never raises a limit
// its caller set.
var ErrCallerMemoryLimit = errors.New(
	"the address-space limit the caller set is lower, and holds the worker")

// MemoryHold is what of the supervisor's side holds a worker's memory
// limit, beside the worker's own limits.
type MemoryHold struct {
	By  string // what holds it: "" when nothing of the supervisor's side does
	Why string // why nothing does, where something could have
}
