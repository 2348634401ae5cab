package lang

import (
	"fmt"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/sabline/sabline/codes"
)

// TestEnumeratePastTheInts: enumerate numbers its pairs past 2⁶³ − 1 as
// Python does (each want is Python's), where go.starlark.net's wrapped to
// −2⁶³, and takes a start past the ints; what is not an int is refused.
func TestEnumeratePastTheInts(t *testing.T) {
	for _, tt := range []struct {
		name, expr string
		want       string     // what print(expr) prints
		wantCode   codes.Code // or the refusal
		wantSays   string
	}{
		{name: "past the largest int", expr: `enumerate(["a", "b"], (1 << 63) - 1)`,
			want: `[(9223372036854775807, "a"), (9223372036854775808, "b")]`}, // was -2^63
		{name: "a start past the ints", expr: `enumerate("ab".elems(), 1 << 70)`,
			want: `[(1180591620717411303424, "a"), (1180591620717411303425, "b")]`},
		{name: "up from the least int", expr: "enumerate([0, 0], -(1 << 63) - 1)",
			want: "[(-9223372036854775809, 0), (-9223372036854775808, 0)]"},
		{name: "of a dict's keys, its length known", expr: `enumerate({"k": 1}, -2)`,
			want: `[(-2, "k")]`},
		{name: "a start that is no int", expr: `enumerate([1], "0")`, wantCode: codes.E305,
			wantSays: "got string, want int"},
		{name: "nothing to enumerate", expr: "enumerate(3)", wantCode: codes.E305,
			wantSays: "got int, want iterable"},
		// The controls: what go.starlark.net's enumerate gave right, the same.
		{name: "from zero", expr: `enumerate(["a", "b"])`, want: `[(0, "a"), (1, "b")]`},
		{name: "from a start", expr: "enumerate(range(3), 5)", want: "[(5, 0), (6, 1), (7, 2)]"},
		{name: "empty", expr: "enumerate([], 1 << 63)", want: "[]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			printsAsPython(t, tt.expr, tt.want, tt.wantCode, tt.wantSays)
		})
	}
}

// TestEnumerateAsStarlarks: where go.starlark.net's enumerate is right
// (a start far from the ints' ends), the language's gives the same list,
// for sequences of a known length and iterables of none.
func TestEnumerateAsStarlarks(t *testing.T) {
	theirs := starlark.Universe["enumerate"]
	th := &starlark.Thread{Name: "enumerates"}
	asked := 0
	for _, src := range []string{"[]", "[1, 2, 3]", `("a", None)`, `{"k": 1, "j": 2}`,
		"range(4)", `"abc".elems()`, `{"x": 1}.items()`, "set([7, 8])", "unsized"} {
		for _, start := range []string{"", ", 0", ", -5", ", 100"} {
			q := "enumerate(" + src + start + ")"
			eval := func(fn starlark.Value) string {
				v, err := starlark.EvalOptions(&syntax.FileOptions{Set: true}, th, "q", q,
					starlark.StringDict{"enumerate": fn,
						"unsized": unsized{starlark.MakeInt(4), starlark.String("e")}})
				if err != nil {
					return "error: " + err.Error()
				}
				return v.String()
			}
			asked++
			if got, want := eval(enumerateFunc), eval(theirs); got != want {
				t.Fatalf("%s = %s; go.starlark.net's says %s", q, got, want)
			}
		}
	}
	if asked == 0 {
		t.Fatal("no question asked")
	}
}

// unsized is an iterable of no known length (starlark.Len is -1).
type unsized []starlark.Value

func (u unsized) String() string        { return "unsized" }
func (u unsized) Type() string          { return "unsized" }
func (u unsized) Freeze()               {}
func (u unsized) Truth() starlark.Bool  { return len(u) > 0 }
func (u unsized) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: unsized") }
func (u unsized) Iterate() starlark.Iterator {
	return starlark.NewList(u).Iterate()
}
