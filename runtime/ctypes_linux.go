//go:build linux

package runtime

import (
	"fmt"
	goruntime "runtime"
	"syscall"
	"unsafe"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/sabline/sabline/confine"
)

// ctypesModule gives a program raw system calls: ctypes.syscall(name, *args)
// with integer, string (passed as a NUL-terminated copy) and None (0)
// arguments, returning struct(ret, errno) with errno "" on success. A name
// is looked up in this architecture's table; an integer is used as is.
func ctypesModule() starlark.Value {
	return hostModule("ctypes", map[string]builtinFn{
		"syscall": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 || len(args) < 1 || len(args) > 7 {
				return nil, fmt.Errorf("%s: want a name or number and at most six arguments", b.Name())
			}
			nr, err := syscallNumber(args[0])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			var words [6]uintptr
			var keep [][]byte
			for i, a := range args[1:] {
				switch a := a.(type) {
				case starlark.NoneType:
				case starlark.Int:
					v, ok := a.Int64()
					if !ok {
						u, ok := a.Uint64()
						if !ok {
							return nil, fmt.Errorf("%s: argument %d does not fit 64 bits", b.Name(), i+1)
						}
						v = int64(u)
					}
					words[i] = uintptr(v)
				case starlark.String, starlark.Bytes:
					s, _ := text(a)
					buf := append([]byte(s), 0)
					keep = append(keep, buf)
					words[i] = uintptr(unsafe.Pointer(&buf[0]))
				default:
					return nil, fmt.Errorf("%s: argument %d: want int, string, bytes or None, got %s", b.Name(), i+1, a.Type())
				}
			}
			r1, _, errno := syscall.Syscall6(nr, words[0], words[1], words[2], words[3], words[4], words[5])
			goruntime.KeepAlive(keep)
			name := ""
			if errno != 0 {
				name = ErrnoName(errno)
			}
			return starlarkstruct.FromStringDict(starlark.String("syscall"), starlark.StringDict{
				"ret":   starlark.MakeInt64(int64(r1)),
				"errno": starlark.String(name),
			}), nil
		},
	})
}

func syscallNumber(v starlark.Value) (uintptr, error) {
	switch v := v.(type) {
	case starlark.Int:
		n, ok := v.Int64()
		if !ok || n < 0 {
			return 0, fmt.Errorf("bad system call number %s", v)
		}
		return uintptr(n), nil
	case starlark.String:
		arch, ok := confine.NativeArch()
		if !ok {
			return 0, fmt.Errorf("no system call table for %s", goruntime.GOARCH)
		}
		n, ok := arch.Table[string(v)]
		if !ok {
			return 0, fmt.Errorf("no system call %q on %s", string(v), arch.Name)
		}
		return uintptr(n), nil
	}
	return 0, fmt.Errorf("want a system call name or number, got %s", v.Type())
}
