//go:build unix && !linux

package runtime

import "syscall"

// parentDeathSignal: only Linux can tie a child's life to its parent's.
func parentDeathSignal(*syscall.SysProcAttr) {}
