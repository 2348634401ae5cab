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
