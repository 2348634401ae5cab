//go:build linux

package runtime

import "syscall"

// parentDeathSignal has the kernel kill the worker if the supervisor dies
// without stopping it (kill -9 of the supervisor, say).
func parentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
