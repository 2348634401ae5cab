//go:build unix && !freebsd

package lang

// devArg is a device number as this system's unix.Mknod takes it.
func devArg(d uint64) int { return int(d) }
