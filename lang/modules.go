package lang

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"sort"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
)

// module builds a Starlark module value from named builtins.
func module(name string, fns map[string]builtinFn) *starlarkstruct.Module {
	m := &starlarkstruct.Module{Name: name, Members: starlark.StringDict{}}
	for n, fn := range fns {
		m.Members[n] = starlark.NewBuiltin(name+"."+n, fn)
	}
	return m
}

// text accepts a string or bytes value as the data of a write or a send.
func text(v starlark.Value) (string, error) {
	switch v := v.(type) {
	case starlark.String:
		return string(v), nil
	case starlark.Bytes:
		return string(v), nil
	}
	return "", fmt.Errorf("want a string or bytes, got %s", v.Type())
}

// print writes its arguments to standard output, separated by spaces, and
// is an io effect.
func (in *Interp) print(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
	kwargs []starlark.Tuple) (starlark.Value, error) {
	sep := " "
	if err := starlark.UnpackArgs(b.Name(), nil, kwargs, "sep?", &sep); err != nil {
		return nil, err
	}
	if err := in.check(budget.Effect{Kind: budget.IO}); err != nil {
		return nil, err
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if s, ok := a.(starlark.String); ok {
			parts[i] = string(s)
		} else {
			parts[i] = a.String()
		}
	}
	line := strings.Join(parts, sep) + "\n"
	n, err := io.WriteString(in.stdout, line)
	if err == nil && n < len(line) {
		// A writer that took part and said nothing (io.Writer's rule
		// broken): the rest is lost all the same, as the relay says of
		// a worker's output.
		err = io.ErrShortWrite
	}
	if err != nil {
		return nil, in.osError(codes.E305, "print", err)
	}
	return starlark.None, nil
}

// declassify is a rule of the language: it hands its argument back, and is
// granted by the declassify item.
func (in *Interp) declassify(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
	kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	if err := in.check(budget.Effect{Kind: budget.Declassify}); err != nil {
		return nil, err
	}
	return v, nil
}

func (in *Interp) ioModule() *starlarkstruct.Module {
	return module("io", map[string]builtinFn{
		"print": in.print,
		"read_line": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			if err := in.check(budget.Effect{Kind: budget.IO}); err != nil {
				return nil, err
			}
			line, err := in.input().ReadString('\n')
			if err == io.EOF && line == "" {
				return starlark.None, nil
			}
			if err != nil && err != io.EOF {
				return nil, in.osError(codes.E305, "io.read_line", err)
			}
			return starlark.String(strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")), nil
		},
		"read_all": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			if err := in.check(budget.Effect{Kind: budget.IO}); err != nil {
				return nil, err
			}
			data, err := io.ReadAll(in.input())
			if err != nil {
				return nil, in.osError(codes.E305, "io.read_all", err)
			}
			return starlark.String(data), nil
		},
	})
}

func (in *Interp) fsModule() *starlarkstruct.Module {
	type fn = func(*starlark.Thread, *starlark.Builtin, starlark.Tuple,
		[]starlark.Tuple) (starlark.Value, error)
	onePath := func(do func(op, path string) (starlark.Value, error)) fn {
		return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var p string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &p); err != nil {
				return nil, err
			}
			return do(b.Name(), p)
		}
	}
	writeWith := func(flag int) fn {
		return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var p string
			var data starlark.Value
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &p, &data); err != nil {
				return nil, err
			}
			s, err := text(data)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			return in.fsWrite(b.Name(), p, s, flag)
		}
	}
	return module("fs", map[string]fn{
		"read":   onePath(in.fsRead),
		"list":   onePath(in.fsList),
		"exists": onePath(in.fsExists),
		"remove": onePath(in.fsRemove),
		"mkdir":  onePath(in.fsMkdir),
		"write":  writeWith(os.O_TRUNC),
		"append": writeWith(os.O_APPEND),
	})
}

func (in *Interp) envModule() *starlarkstruct.Module {
	return module("env", map[string]builtinFn{
		"get": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			var dflt starlark.Value = starlark.None
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "default?",
				&dflt); err != nil {
				return nil, err
			}
			if err := in.check(budget.Effect{Kind: budget.Env}); err != nil {
				return nil, err
			}
			if v, ok := in.env(name); ok {
				return starlark.String(v), nil
			}
			return dflt, nil
		},
	})
}

func (in *Interp) clockModule() *starlarkstruct.Module {
	return module("clock", map[string]builtinFn{
		"now": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 0); err != nil {
				return nil, err
			}
			if err := in.check(budget.Effect{Kind: budget.Clock}); err != nil {
				return nil, err
			}
			return starlark.Float(float64(time.Now().UnixNano()) / 1e9), nil
		},
	})
}

func (in *Interp) randModule() *starlarkstruct.Module {
	return module("rand", map[string]builtinFn{
		"int": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int64
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &n); err != nil {
				return nil, err
			}
			if n <= 0 {
				return nil, fmt.Errorf("%s: n must be positive, got %d", b.Name(), n)
			}
			if err := in.check(budget.Effect{Kind: budget.Rand}); err != nil {
				return nil, err
			}
			v, err := rand.Int(rand.Reader, big.NewInt(n))
			if err != nil {
				return nil, in.osError(codes.E305, b.Name(), err)
			}
			return starlark.MakeInt64(v.Int64()), nil
		},
		"bytes": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var n int
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &n); err != nil {
				return nil, err
			}
			if n < 0 || n > 1<<20 {
				return nil, fmt.Errorf("%s: n must be from 0 to 1048576, got %d", b.Name(), n)
			}
			if err := in.check(budget.Effect{Kind: budget.Rand}); err != nil {
				return nil, err
			}
			buf := make([]byte, n)
			if _, err := rand.Read(buf); err != nil {
				return nil, in.osError(codes.E305, b.Name(), err)
			}
			return starlark.Bytes(buf), nil
		},
	})
}

// toolModule: tool.call(name, args) writes one line of JSON,
// {"tool": name, "args": args}, on the run's tool channel and reads one
// line of JSON back from it as the answer. In a worker the channel is the
// descriptor the host passed (docs/tools.md), which nothing the program
// prints can reach: a line on standard output is never a tool request.
func (in *Interp) toolModule() *starlarkstruct.Module {
	return module("tool", map[string]builtinFn{
		"call": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			var targs starlark.Value = starlark.None
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "args?",
				&targs); err != nil {
				return nil, err
			}
			if err := in.check(budget.Effect{Kind: budget.Tool}); err != nil {
				return nil, err
			}
			goArgs, err := toGo(targs)
			if err != nil {
				return nil, codes.Errorf(codes.E305, "%s: args: %w", b.Name(), err)
			}
			line, err := json.Marshal(map[string]any{"tool": name, "args": goArgs})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", b.Name(), err)
			}
			ch := in.toolChannel()
			if ch == nil {
				return nil, codes.Errorf(codes.E313,
					"tool %s: no answer: this run has no tool channel (the host passes one with --tool-fd; "+
						"docs/tools.md)", name)
			}
			answer, err := ch.call(in.halted, append(line, '\n'))
			return toolAnswer(name, answer, err)
		},
	})
}

// toolAnswer is the value of the answer line a call of the tool name read
// (ToolChannel.call: at most maxToolAnswerBytes), and err the error that
// ended the read: E313 when there is no answer or it is not JSON.
func toolAnswer(name, answer string, err error) (starlark.Value, error) {
	if strings.TrimSpace(answer) == "" {
		return nil, codes.Errorf(codes.E313, "tool %s: no answer on the tool channel (%v)", name, err)
	}
	var v any
	if err := json.Unmarshal([]byte(answer), &v); err != nil {
		return nil, codes.Errorf(codes.E313, "tool %s: the answer is not one line of JSON: %w", name,
			err)
	}
	return fromGo(v), nil
}

// ffiModule: ffi.module(name) returns a host module. (load is a keyword of
// the language, so the call is not ffi.load.)
func (in *Interp) ffiModule() *starlarkstruct.Module {
	return module("ffi", map[string]builtinFn{
		"module": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
			kwargs []starlark.Tuple) (starlark.Value, error) {
			var name string
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &name); err != nil {
				return nil, err
			}
			if err := in.check(budget.Effect{Kind: budget.FFI, Module: name}); err != nil {
				return nil, err
			}
			m, ok := in.registry.Build(name)
			if !ok {
				return nil, codes.Errorf(codes.E312,
					"ffi.module: no host module %q is registered; registered: %s",
					name, strings.Join(in.registry.Names(), ", "))
			}
			return m, nil
		},
	})
}

// sortedNames lists a directory's entry names, sorted.
func sortedNames(dir string) (*starlark.List, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]starlark.Value, len(entries)) // ReadDir sorts by name
	for i, e := range entries {
		out[i] = starlark.String(e.Name())
	}
	return starlark.NewList(out), nil
}

// Limits on a Go value made from a program's value: how deep it nests,
// and how many values and string bytes it holds in all. A list that
// contains itself is too deep, not an endless walk.
const (
	maxGoDepth  = 64
	maxGoValues = 1 << 20
	maxGoBytes  = 64 << 20
)

// toGo converts a Starlark value made of None, bools, numbers, strings,
// lists, tuples and string-keyed dicts to plain Go values for JSON,
// within the limits above.
func toGo(v starlark.Value) (any, error) {
	c := &goConv{}
	return c.conv(v, 0)
}

// goConv counts what one conversion has made.
type goConv struct {
	values, bytes int
}

func (c *goConv) conv(v starlark.Value, depth int) (any, error) {
	if depth > maxGoDepth {
		return nil, fmt.Errorf("the value nests deeper than %d (a list or dict that contains itself?)",
			maxGoDepth)
	}
	if c.values++; c.values > maxGoValues {
		return nil, fmt.Errorf("the value holds more than %d values", maxGoValues)
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		i, ok := v.Int64()
		if !ok {
			return nil, fmt.Errorf("an integer is too large for 64 bits")
		}
		return i, nil
	case starlark.Float:
		return float64(v), nil
	case starlark.String:
		return string(v), c.size(len(v))
	case starlark.Bytes:
		return string(v), c.size(len(v))
	case *starlark.List:
		return c.seq(v, depth)
	case starlark.Tuple:
		return c.seq(v, depth)
	case *starlark.Dict:
		out := make(map[string]any, v.Len())
		for _, kv := range v.Items() {
			k, ok := kv[0].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("dict keys must be strings, got %s", kv[0].Type())
			}
			if err := c.size(len(k)); err != nil {
				return nil, err
			}
			x, err := c.conv(kv[1], depth+1)
			if err != nil {
				return nil, err
			}
			out[string(k)] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot pass a %s", v.Type())
}

func (c *goConv) size(n int) error {
	if c.bytes += n; c.bytes > maxGoBytes {
		return fmt.Errorf("the value holds more than %d bytes of strings", maxGoBytes)
	}
	return nil
}

func (c *goConv) seq(s starlark.Indexable, depth int) (any, error) {
	if s.Len() > maxGoValues {
		return nil, fmt.Errorf("the value holds more than %d values", maxGoValues)
	}
	out := make([]any, s.Len())
	for i := range out {
		x, err := c.conv(s.Index(i), depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// fromGo converts decoded JSON to Starlark values.
func fromGo(v any) starlark.Value {
	switch v := v.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(v)
	case float64:
		if v == float64(int64(v)) {
			return starlark.MakeInt64(int64(v))
		}
		return starlark.Float(v)
	case string:
		return starlark.String(v)
	case []any:
		out := make([]starlark.Value, len(v))
		for i, x := range v {
			out[i] = fromGo(x)
		}
		return starlark.NewList(out)
	case map[string]any:
		d := starlark.NewDict(len(v))
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			_ = d.SetKey(starlark.String(k), fromGo(v[k])) // a fresh dict is not frozen
		}
		return d
	}
	return starlark.String(fmt.Sprint(v))
}
