package lang

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestRangeBeyondInt32: a range's length, elements, membership and
// slices are right past 2³¹ and 2⁶³, where go.starlark.net's overflowed
// (each want is Python's), and a range of more elements than an int
// counts is refused with its count.
func TestRangeBeyondInt32(t *testing.T) {
	for _, tt := range []struct {
		name, expr string
		want       string     // what print(expr) prints
		wantCode   codes.Code // or the refusal
		wantSays   string
	}{
		{name: "more elements than an int counts", expr: "range(-(1 << 62), 1 << 62)",
			wantCode: codes.E305, wantSays: "has 9223372036854775808 elements"}, // was empty
		{name: "as many as an int counts", expr: "len(range(-(1 << 62), (1 << 62) - 1))",
			want: "9223372036854775807"},
		{name: "four elements 2^62 apart", expr: "list(range(-(1 << 63), (1 << 63) - 1, 1 << 62))",
			want: "[-9223372036854775808, -4611686018427387904, 0, 4611686018427387904]"}, // was one
		{name: "membership past 2^31", expr: "[(1 << 40) in range(1 << 50), " +
			"(1 << 40) + 1 in range(0, 1 << 50, 2), (1 << 70) in range(1 << 62)]",
			want: "[True, False, False]"}, // the first was False
		{name: "a slice of a range past 2^62", expr: "[len(range(0, (1 << 63) - 1, 2)[::1]), " +
			"range(0, (1 << 63) - 1, 2)[::-1]]",
			want: "[4611686018427387904, range(9223372036854775806, -2, -2)]"}, // was empty
		{name: "a slice whose bounds are past the ints",
			expr: "[range((1 << 63) - 1, 0, -1)[::-1], range(-(1 << 63), (1 << 63) - 1, 1 << 62)[::2]]",
			want: "[range(1, 9223372036854775808), " +
				"range(-9223372036854775808, 9223372036854775808, 9223372036854775808)]"},
		{name: "its last element the largest int", expr: "range((1 << 63) - 1, 0, -1)[::-1][-1]",
			want: "9223372036854775807"},
		{name: "the least step", expr: "list(range((1 << 63) - 1, -(1 << 63), -(1 << 63)))",
			want: "[9223372036854775807, -1]"},
		{name: "a float with a fraction is no element", expr: "[2.5 in range(5), 2.0 in range(5), " +
			"-0.5 in range(1)]", want: "[False, True, False]"}, // 2.5 and -0.5 were in
		{name: "a float of 2^63 is no element",
			expr: "[float(1 << 63) in range(-(1 << 63), -(1 << 63) + 1), " +
				"float(1 << 63) in range((1 << 63) - 1, (1 << 63) - 2, -1), " +
				"float(1 << 62) in range(1 << 62, (1 << 62) + 1)]",
			want: "[False, False, True]"}, // past the ints, where no element is
		{name: "ranges of the same first element the other way are not equal",
			expr: "[range(5, -5, -2) == range(5, 15, 2), range(5, -5, -2) == range(5, -4, -2), " +
				"range(0, 10, 20) == range(0, -10, -20)]",
			want: "[False, True, True]"}, // 5, 3, 1, -1, -3 against 5, 7, 9, 11, 13
		// The controls: what go.starlark.net's range gave right, the same.
		{name: "a small range", expr: "[list(range(5)), range(10)[2:8:2], range(0, 10, 3)[::-1]]",
			want: "[[0, 1, 2, 3, 4], range(2, 8, 2), range(9, -3, -3)]"},
		{name: "a step of zero", expr: "range(1, 2, 0)", wantCode: codes.E305,
			wantSays: "step argument must not be zero"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			printsAsPython(t, tt.expr, tt.want, tt.wantCode, tt.wantSays)
		})
	}
}

// printsAsPython runs print(expr) and fails t unless it printed want, or,
// where wantCode is not empty, was refused with that code saying
// wantSays.
func printsAsPython(t *testing.T, expr, want string, wantCode codes.Code, wantSays string) {
	t.Helper()
	dir := testkit.Scratch(t)
	r := runSrc(t, Config{Budget: budget.MustParse(dir, "io"), Cwd: dir}, "print("+expr+")\n")
	if wantCode != "" {
		if codes.CodeOf(r.err) != wantCode || !strings.Contains(fmt.Sprint(r.err), wantSays) {
			t.Fatalf("%s: %v, printed %q; want %s saying %q", expr, r.err, r.stdout, wantCode,
				wantSays)
		}
		return
	}
	if r.err != nil || r.stdout != want+"\n" {
		t.Fatalf("%s printed %q, %v; want %q", expr, r.stdout, r.err, want)
	}
}

// TestRangeAsStarlarks: where go.starlark.net's range is right (small
// bounds, a number without a fraction), the language's gives the same
// answer to every question, printed, or the same error.
func TestRangeAsStarlarks(t *testing.T) {
	theirs := starlark.Universe["range"]
	questions := []string{"len(r)", "list(r)", "str(r)", "bool(r)", "r[1:]", "r[::-1]",
		"r[1:-1:2]", "r[::3]", "r[5:1:-2]", "list(r[::-2])", "r[2]", "r[-1]",
		"[x in r for x in (-9, -3, 0, 1, 2, 5, 8, 2.0, -3.0)]", "r == range(0)",
		"r == range(r[0], r[-1] + 1) if r else None", "[x for x in r]"}
	th := &starlark.Thread{Name: "ranges"}
	answer := func(fn starlark.Value, args starlark.Tuple, q string) string {
		r, err := starlark.Call(th, fn, args, nil)
		if err != nil {
			return "error: " + err.Error()
		}
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, th, "q", q,
			starlark.StringDict{"r": r, "range": fn})
		if err != nil {
			return "error: " + err.Error()
		}
		return v.String()
	}
	asked := 0
	for start := -7; start <= 7; start += 2 {
		for stop := -8; stop <= 8; stop += 3 {
			for _, step := range []int{-4, -3, -1, 1, 2, 5} {
				for _, args := range []starlark.Tuple{
					{starlark.MakeInt(stop)},
					{starlark.MakeInt(start), starlark.MakeInt(stop)},
					{starlark.MakeInt(start), starlark.MakeInt(stop), starlark.MakeInt(step)},
				} {
					for _, q := range questions {
						asked++
						want, got := answer(theirs, args, q), answer(rangeFunc, args, q)
						if got != want {
							t.Fatalf("range%s: %s = %s; go.starlark.net's says %s", args, q, got, want)
						}
					}
				}
			}
		}
	}
	if asked == 0 {
		t.Fatal("no question asked")
	}
}
