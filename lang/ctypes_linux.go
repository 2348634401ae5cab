//go:build linux

package lang

import (
	"fmt"
	goruntime "runtime"
	"syscall"
	"unsafe"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/sabline/sabline/internal/sysno"
)

// ctypesModule gives a program raw system calls:
//
//	ctypes.syscall(name_or_nr, *args)   through this architecture's own entry
//	ctypes.syscall32(nr, *args)         through the i386 entry, int $0x80 (linux/amd64)
//
// syscall takes integer, string or bytes (passed as a pointer to a
// NUL-terminated copy) and None (0) arguments; syscall32 takes integers and
// None only, since a 32-bit call cannot name an address of the Go heap.
// Both return struct(ret, errno), errno "" on success and otherwise the
// errno's symbolic name ("EPERM"). A name is looked up in this
// architecture's table; an integer is used as is, so an x32 number
// (0x40000000 | nr) reaches the kernel unchanged. On a kernel without the
// i386 entry, syscall32 fails with a message that says so (ErrNoI386Entry)
// and the program may go on.
func ctypesModule() starlark.Value {
	return module("ctypes", map[string]builtinFn{
		"syscall": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
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
				case starlark.String, starlark.Bytes:
					s, _ := text(a)
					buf := append([]byte(s), 0)
					keep = append(keep, buf)
					words[i] = uintptr(unsafe.Pointer(&buf[0]))
				default:
					if words[i], err = syscallWord(a, i+1); err != nil {
						return nil, fmt.Errorf("%s: %w", b.Name(), err)
					}
				}
			}
			r1, _, errno := syscall.Syscall6(nr, words[0], words[1], words[2], words[3], words[4], words[5])
			goruntime.KeepAlive(keep)
			return syscallResult(int64(r1), errno), nil
		},
		"syscall32": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			if len(kwargs) > 0 || len(args) < 1 || len(args) > 7 {
				return nil, fmt.Errorf("%s: want an i386 system call number and at most six arguments",
					b.Name())
			}
			var words [7]uintptr
			for i, a := range args {
				if _, ok := a.(starlark.Int); !ok && a != starlark.None {
					return nil, fmt.Errorf("%s: argument %d: want int or None, got %s (a 32-bit call cannot "+
						"name an address of the Go heap)", b.Name(), i, a.Type())
				}
				w, err := syscallWord(a, i)
				if n := int64(w); err == nil && (n > 0xffffffff || n < -0x80000000) {
					err = fmt.Errorf("argument %d does not fit 32 bits", i)
				}
				if err != nil {
					return nil, fmt.Errorf("%s: %w", b.Name(), err)
				}
				words[i] = w
			}
			r, errno, err := syscall32(words)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return syscallResult(r, errno), nil
		},
	})
}

// syscallWord converts an integer or None argument to a register's word.
// Argument 0 is the call number.
func syscallWord(v starlark.Value, i int) (uintptr, error) {
	switch v := v.(type) {
	case starlark.NoneType:
		return 0, nil
	case starlark.Int:
		if n, ok := v.Int64(); ok {
			return uintptr(n), nil
		}
		if u, ok := v.Uint64(); ok {
			return uintptr(u), nil
		}
		return 0, fmt.Errorf("argument %d does not fit 64 bits", i)
	}
	return 0, fmt.Errorf("argument %d: want int, string, bytes or None, got %s", i, v.Type())
}

// syscallResult is the struct(ret, errno) a raw call returns.
func syscallResult(ret int64, errno syscall.Errno) starlark.Value {
	name := ""
	if errno != 0 {
		name = ErrnoName(errno)
	}
	return starlarkstruct.FromStringDict(starlark.String("syscall"), starlark.StringDict{
		"ret":   starlark.MakeInt64(ret),
		"errno": starlark.String(name),
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
		table, ok := sysno.Table(goruntime.GOARCH)
		if !ok {
			return 0, fmt.Errorf("no system call table for %s", goruntime.GOARCH)
		}
		n, ok := table[string(v)]
		if !ok {
			return 0, fmt.Errorf("no system call %q on %s", string(v), goruntime.GOARCH)
		}
		return uintptr(n), nil
	}
	return 0, fmt.Errorf("want a system call name or number, got %s", v.Type())
}
