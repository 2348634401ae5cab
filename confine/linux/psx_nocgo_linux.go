//go:build linux && !cgo

package linux

// psxListsTasks is false in a build without cgo, where libpsx's calls are
// syscall.AllThreadsSyscall and list nothing.
const psxListsTasks = false
