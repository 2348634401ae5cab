// Package seccomp is the system call filter of a confined Sabline worker
// on Linux: an allow-list. One rules table (rules.go) names every call the
// worker may make, with what in the worker needs it and, for a call that
// multiplexes (ioctl, fcntl, prctl, socket, clone), the sub-commands it may
// use; every other call the kernel's table has is refused with EPERM, and
// every number past it (or in a gap of it) with ENOSYS, so that a newer Go
// or libc falls back as on an older kernel. From that table Program builds
// the classic BPF program for each architecture (amd64, arm64), verdict
// says in plain Go what the program must answer for any call, so that the
// one can be checked against the other by running the program in runChecked,
// and Install puts the program on every thread of the process.
package seccomp
