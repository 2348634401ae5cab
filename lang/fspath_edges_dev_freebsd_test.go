package lang

// devArg is a device number as FreeBSD's unix.Mknod takes it.
func devArg(d uint64) uint64 { return d }
