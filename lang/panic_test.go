package lang

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestExecRecoversAPanic: a host module that panics ends the run with
// E310, and the test process (any process that runs a program) goes on;
// the same module's other builtin runs.
func TestExecRecoversAPanic(t *testing.T) {
	reg := NewRegistry()
	reg.Register("faulty", func() starlark.Value {
		return module("faulty", map[string]builtinFn{
			"boom": func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				panic("a bug in a host module")
			},
			"fine": func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
				return starlark.String("ok"), nil
			},
		})
	})
	dir := testkit.Scratch(t)
	for _, tt := range []struct {
		name, call string
		wantCode   codes.Code
	}{
		{name: "a panic", call: "boom", wantCode: codes.E310},
		{name: "the control", call: "fine"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runSrc(t, Config{Budget: budget.MustParse(dir, "io,ffi:faulty"), Cwd: dir, Registry: reg},
				"ffi.module(\"faulty\")."+tt.call+"()\n")
			if codes.CodeOf(r.err) != tt.wantCode {
				t.Fatalf("error %v, want code %q", r.err, tt.wantCode)
			}
			if tt.wantCode != "" && !strings.Contains(r.err.Error(), "a bug in a host module") {
				t.Errorf("error %v, want the panic named", r.err)
			}
		})
	}
}

// TestValuePastAnyMemory: a value the program asks for past what any
// process can address (go.starlark.net makes room at once for the length
// it is told, and the Go runtime refuses the size with a panic) is the
// program's own failure, E305 saying so, where it was E310, "internal
// error", a fault in Sabline to report; the same builtins on a length
// that fits run. A host module's own panic on a size (a fault of its
// own) stays E310.
func TestValuePastAnyMemory(t *testing.T) {
	reg := NewRegistry()
	reg.Register("sized", func() starlark.Value {
		return module("sized", map[string]builtinFn{
			"make": func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
				kwargs []starlark.Tuple) (starlark.Value, error) {
				var n int
				if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &n); err != nil {
					return nil, err
				}
				return starlark.Bytes(make([]byte, n)), nil
			},
		})
	})
	dir := testkit.Scratch(t)
	for _, tt := range []struct {
		name, expr string
		wantCode   codes.Code
	}{
		{name: "list", expr: "list(range(1 << 61))", wantCode: codes.E305},
		{name: "tuple", expr: "tuple(range(1 << 61))", wantCode: codes.E305},
		{name: "sorted", expr: "sorted(range(1 << 61))", wantCode: codes.E305},
		{name: "enumerate", expr: "enumerate(range(1 << 62))", wantCode: codes.E305},
		{name: "zip", expr: "zip(range(1 << 60), range(1 << 60))", wantCode: codes.E305},
		{name: "rsplit", expr: `" a b".rsplit(None, 1 << 61)`, wantCode: codes.E305},
		{name: "replace", expr: `("a" * (1 << 25)).replace("", "b" * (1 << 25))`, wantCode: codes.E305},
		{name: "a host module's own", expr: `ffi.module("sized").make(-1)`, wantCode: codes.E310},
		{name: "list, the control", expr: "list(range(3))"},
		{name: "zip, the control", expr: "zip(range(3), range(3))"},
		{name: "rsplit, the control", expr: `" a b".rsplit(None, 1)`},
		{name: "replace, the control", expr: `"aa".replace("", "b")`},
		{name: "a host module's own, the control", expr: `ffi.module("sized").make(3)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runSrc(t, Config{Budget: budget.MustParse(dir, "io,ffi:sized"), Cwd: dir, Registry: reg},
				"x = "+tt.expr+"\nprint(len(x))\n")
			if codes.CodeOf(r.err) != tt.wantCode {
				t.Fatalf("%s: error %v, want code %q", tt.expr, r.err, tt.wantCode)
			}
			switch {
			case tt.wantCode == codes.E305 && !strings.Contains(r.err.Error(), "larger than any memory"):
				t.Errorf("%s: error %v, want it to say the value is larger than any memory holds",
					tt.expr, r.err)
			case tt.wantCode == "" && r.stdout == "":
				t.Errorf("%s: printed nothing, want its length", tt.expr)
			}
		})
	}
}

// TestStandardNamesGoOwnOnly: the frames panicSite passes over are the
// runtime's and the standard library's; go.starlark.net's, Sabline's and
// a main package's (an embedder's host module) are not.
func TestStandardNamesGoOwnOnly(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.panicmakeslicelen":                  true,
		"strings.(*Builder).grow":                    true,
		"internal/bytealg.MakeNoZero":                true,
		"encoding/json.appendIndent":                 true,
		"go.starlark.net/starlark.list":              false,
		"go.starlark.net/starlark.(*Thread).Cancel":  false,
		"github.com/sabline/sabline/lang.panicError": false,
		"main.geoModule.func1":                       false,
		"example.com/geo.near":                       false,
	} {
		if got := standard(fn); got != want {
			t.Errorf("standard(%q) = %v, want %v", fn, got, want)
		}
	}
}

// TestPanicErrorOfTheRuntime: of the Go runtime's panics in
// go.starlark.net, only its refusal of a size past any memory is the
// program's own doing (E305); any other (an index past the end, a nil
// map written) is a fault in the interpreter, E310, "internal error", to
// be reported, never said to be the program's asking for too much. The
// control: the refusal of a size there is E305.
func TestPanicErrorOfTheRuntime(t *testing.T) {
	panicked := func(f func()) (r any) {
		defer func() { r = recover() }()
		f()
		return nil
	}
	n := -1 + len(t.Name())*0 // not a constant: the compiler would refuse it
	const site = "go.starlark.net/starlark.(*List).Index"
	for _, tt := range []struct {
		name string
		r    any
		want codes.Code
	}{
		{name: "the control: a size past any memory", want: codes.E305,
			r: panicked(func() { _ = make([]byte, n) })},
		{name: "an index past the end, in go.starlark.net", want: codes.E310,
			r: panicked(func() { _ = []int{}[n+1] })},
		{name: "a nil map written, in go.starlark.net", want: codes.E310,
			r: panicked(func() {
				var m map[int]int
				//lint:ignore SA5000 the runtime's panic is what the case is made of
				m[n] = 1
			})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := tt.r.(interface{ RuntimeError() }); !ok {
				t.Fatalf("the panic %v is not the runtime's", tt.r)
			}
			if err := panicError(tt.r, site); codes.CodeOf(err) != tt.want {
				t.Errorf("panicError(%v) = %v, want %s", tt.r, err, tt.want)
			}
		})
	}
}
