//go:build linux && cgo

package linux

// psxListsTasks is true in a build with cgo, where libpsx, which reaches
// every thread, lists /proc/PID/task right after each thread's
// landlock_restrict_self, and aborts the process when it cannot: the
// ruleset lets that one directory be listed (buildLandlock), as
// go-landlock's own Restrict does in such a build.
const psxListsTasks = true
