//go:build !linux

package lang

import (
	"fmt"
	goruntime "runtime"

	"go.starlark.net/starlark"
)

// ctypesModule: raw system calls are offered on Linux only.
func ctypesModule() starlark.Value {
	linuxOnly := func(_ *starlark.Thread, b *starlark.Builtin, _ starlark.Tuple,
		_ []starlark.Tuple) (starlark.Value, error) {
		return nil, fmt.Errorf("%s: raw system calls are offered on Linux only, not %s", b.Name(),
			goruntime.GOOS)
	}
	return module("ctypes", map[string]builtinFn{"syscall": linuxOnly, "syscall32": linuxOnly})
}
