package lang

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// The language's range. go.starlark.net's counts a range's elements, and
// tells whether a number is one of them, in arithmetic that overflows
// past 2³¹ or 2⁶³ without a word: range(-(1 << 62), 1 << 62) was empty
// (a loop over it ran no time), range(-(1 << 63), (1 << 63) - 1, 1 << 62)
// had one element where it has four, (1 << 40) in range(1 << 50) was
// False, a slice of range(0, (1 << 63) - 1, 2) was empty, and 2.5 in
// range(5) was True. This one counts in unsigned 64-bit arithmetic, whose
// results it uses only where they are exact (TestRangeBeyondInt32):
//
//   - a range of more elements than an int counts (2⁶³ − 1) is refused
//     where it is made, with its count (E305);
//   - its elements are computed modulo 2⁶⁴, which is exact for each,
//     since each lies between its start and its stop;
//   - a number is in it when it is an int, or a float with no fraction,
//     equal to one of them.
//
// A range is printed as it was written, and a slice of one as Python
// prints it, its bounds past the ints where they fall there.

// rangeFunc is the predeclared range, shared by every run: a builtin
// with no receiver holds nothing of a run's.
var rangeFunc = starlark.NewBuiltin("range", rangeBuiltin)

// rangeBuiltin is the predeclared range(stop), range(start, stop[, step]).
func rangeBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple,
	kwargs []starlark.Tuple) (starlark.Value, error) {
	var start, stop int
	step := 1
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &start, &stop,
		&step); err != nil {
		return nil, err
	}
	if len(args) == 1 {
		start, stop = 0, start
	}
	if step == 0 {
		return nil, fmt.Errorf("%s: step argument must not be zero", b.Name())
	}
	r := rangeValue{first: start, mag: magnitude(step), neg: step < 0, stop: stop}
	n := rangeCount(start, stop, r.mag, r.neg)
	if n > math.MaxInt {
		return nil, fmt.Errorf("%s: %s has %d elements, more than a range holds (%d)", b.Name(),
			r.String(), n, math.MaxInt)
	}
	r.n = int(n)
	return r, nil
}

// magnitude is |i| as an unsigned number, exact for math.MinInt too.
func magnitude(i int) uint64 {
	if i < 0 {
		return uint64(-(i + 1)) + 1
	}
	return uint64(i)
}

// rangeCount is how many elements start, start ± mag, ... has before
// stop, counted exactly: the distance between two ints fits in a uint64.
func rangeCount(start, stop int, mag uint64, neg bool) uint64 {
	var span uint64
	switch {
	case !neg && stop > start:
		span = uint64(stop) - uint64(start)
	case neg && start > stop:
		span = uint64(start) - uint64(stop)
	default:
		return 0
	}
	return (span-1)/mag + 1
}

// rangeValue is a range: n elements from first, mag apart, falling when
// neg. mag may be any value where n < 2 (a slice's step past 2⁶⁴ is kept
// as 2⁶⁴ − 1). stop is the bound it was written with, or for a slice
// the one Python gives it (rangeValue.Slice).
type rangeValue struct {
	first int
	mag   uint64
	neg   bool
	n     int
	stop  int
	// wide is a slice's start and stop where either is past the ints,
	// which String prints; nil for every other range.
	wide *[2]*big.Int
}

var (
	_ starlark.Indexable  = rangeValue{}
	_ starlark.Sequence   = rangeValue{}
	_ starlark.Comparable = rangeValue{}
	_ starlark.Sliceable  = rangeValue{}
	_ starlark.Container  = rangeValue{}
)

func (r rangeValue) Type() string          { return "range" }
func (r rangeValue) Freeze()               {} // immutable
func (r rangeValue) Truth() starlark.Bool  { return r.n > 0 }
func (r rangeValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: range") }
func (r rangeValue) Len() int              { return r.n }

// Index is the i'th element, computed modulo 2⁶⁴: exact, since it lies
// between first and stop.
func (r rangeValue) Index(i int) starlark.Value { return starlark.MakeInt(r.at(i)) }

func (r rangeValue) at(i int) int {
	off := uint64(i) * r.mag
	if r.neg {
		return int(uint64(r.first) - off)
	}
	return int(uint64(r.first) + off)
}

func (r rangeValue) Iterate() starlark.Iterator { return &rangeIterator{r: r} }

// String is the range as range() would be called to make it.
func (r rangeValue) String() string {
	from, to := big.NewInt(int64(r.first)), big.NewInt(int64(r.stop))
	if r.wide != nil {
		from, to = r.wide[0], r.wide[1]
	}
	step := new(big.Int).SetUint64(r.mag)
	if r.neg {
		step.Neg(step)
	}
	switch {
	case step.Cmp(big.NewInt(1)) != 0:
		return fmt.Sprintf("range(%s, %s, %s)", from, to, step)
	case from.Sign() != 0:
		return fmt.Sprintf("range(%s, %s)", from, to)
	default:
		return fmt.Sprintf("range(%s)", to)
	}
}

// Slice is the elements at start, start+step, ... before end, indices
// starlark has bounded to the range: a range again, from the element at
// start, its step the range's times step, its stop where the slice's end
// falls, as Python gives them.
func (r rangeValue) Slice(start, end, step int) starlark.Value {
	smag := magnitude(step)
	var n uint64
	switch {
	case step > 0 && end > start:
		n = (uint64(end)-uint64(start)-1)/smag + 1
	case step < 0 && start > end:
		n = (uint64(start)-uint64(end)-1)/smag + 1
	}
	hi, mag := bits.Mul64(r.mag, smag)
	if hi != 0 {
		mag = math.MaxUint64 // a step past 2⁶⁴: no second element
	}
	s := rangeValue{mag: mag, neg: r.neg != (step < 0), n: int(n)}
	from, to := r.position(start), r.position(end)
	if from.IsInt64() && to.IsInt64() {
		s.first, s.stop = int(from.Int64()), int(to.Int64())
	} else {
		s.wide = &[2]*big.Int{from, to}
		s.first = r.at(start) // an element where there is one, and never printed
	}
	return s
}

// position is where r's element at index i would be, first + i*step; i
// may be past r's ends, and the position past the ints.
func (r rangeValue) position(i int) *big.Int {
	p := new(big.Int).SetUint64(r.mag)
	if r.neg {
		p.Neg(p)
	}
	p.Mul(p, big.NewInt(int64(i)))
	return p.Add(p, big.NewInt(int64(r.first)))
}

// CompareSameType says whether two ranges are the same elements.
func (r rangeValue) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	o := y.(rangeValue)
	switch op {
	case syntax.EQL:
		return r.same(o), nil
	case syntax.NEQ:
		return !r.same(o), nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", r.Type(), op, o.Type())
}

func (r rangeValue) same(o rangeValue) bool {
	switch {
	case r.n != o.n:
		return false
	case r.n == 0:
		return true
	case r.first != o.first:
		return false
	}
	return r.n == 1 || r.mag == o.mag && r.neg == o.neg
}

// Has reports whether y, an int or a float, equals one of r's elements.
func (r rangeValue) Has(y starlark.Value) (bool, error) {
	var x int64
	switch v := y.(type) {
	case starlark.Int:
		i, ok := v.Int64()
		if !ok {
			return false, nil // past the ints, where no element is
		}
		x = i
	case starlark.Float:
		f := float64(v)
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return false, nil
		}
		x = int64(f)
	default:
		return false, fmt.Errorf("'in <range>' requires integer as left operand, not %s", y.Type())
	}
	if r.n == 0 {
		return false, nil
	}
	last := int64(r.at(r.n - 1))
	var d uint64
	switch first := int64(r.first); {
	case !r.neg && x >= first && x <= last:
		d = uint64(x) - uint64(first)
	case r.neg && x <= first && x >= last:
		d = uint64(first) - uint64(x)
	default:
		return false, nil
	}
	return d%r.mag == 0, nil
}

type rangeIterator struct {
	r rangeValue
	i int
}

func (it *rangeIterator) Next(p *starlark.Value) bool {
	if it.i >= it.r.n {
		return false
	}
	*p = it.r.Index(it.i)
	it.i++
	return true
}

func (*rangeIterator) Done() {}
