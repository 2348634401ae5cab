package linux

// LimitMemory holds the calling process's address space (RLIMIT_AS) to
// the run's memory limit of mb megabytes, with room for what it maps now
// and for the Go runtime's own reservations. It is a resource limit, not
// confinement: the worker sets it whether or not the policy is applied.
func LimitMemory(mb int) error { return limitAddressSpace(mb) }
