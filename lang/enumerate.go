package lang

import (
	"fmt"

	"go.starlark.net/starlark"
)

// The language's enumerate. go.starlark.net's adds each element's index
// to its start in a Go int, which wraps past 2⁶³ − 1 without a word:
// enumerate(["a", "b"], (1 << 63) - 1) numbered the second −2⁶³. This one
// counts in the language's own integers, which do not wrap, and takes a
// start of any size, as Python does (TestEnumeratePastTheInts).

// enumerateFunc is the predeclared enumerate, shared by every run: a
// builtin with no receiver holds nothing of a run's.
var enumerateFunc = starlark.NewBuiltin("enumerate", enumerateBuiltin)

// maxPairs is the most pairs enumerate makes: each takes 48 bytes (its
// place in the list and its tuple's two values), and more than 2⁴⁸ bytes
// are more than a 64-bit process addresses. Past it the call is refused
// at once (E305), as go.starlark.net's was by the Go runtime's refusal of
// the size (TestValuePastAnyMemory).
const maxPairs = 1 << 48 / 48

// enumerateBuiltin is the predeclared enumerate(iterable[, start]).
func enumerateBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
	kwargs []starlark.Tuple) (starlark.Value, error) {
	var iterable starlark.Iterable
	start := starlark.MakeInt(0)
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &iterable,
		&start); err != nil {
		return nil, err
	}
	n := starlark.Len(iterable) // -1 when it is not known
	if int64(n) > maxPairs {
		return nil, fmt.Errorf("%s: %d pairs are larger than any memory holds", b.Name(), n)
	}
	var pairs []starlark.Value
	var array starlark.Tuple // one backing array for the pairs of a known length
	if n > 0 {
		pairs, array = make([]starlark.Value, 0, n), make(starlark.Tuple, 2*n)
	}
	iter := iterable.Iterate()
	defer iter.Done()
	one := starlark.MakeInt(1)
	var x starlark.Value
	for i := start; iter.Next(&x); i = i.Add(one) {
		var pair starlark.Tuple
		if len(array) >= 2 {
			pair, array = array[:2:2], array[2:]
		} else {
			pair = make(starlark.Tuple, 2) // a length not known, or one that grew
		}
		pair[0], pair[1] = i, x
		pairs = append(pairs, pair)
	}
	return starlark.NewList(pairs), nil
}
