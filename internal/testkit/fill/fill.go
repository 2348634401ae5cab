// Package fill makes values of a type with every field set, for the
// tests that hold a writer or reader without reflection (packages wire
// and receipt) to encoding/json's bytes: a field added to a struct and
// not to its writer is then set in some value, and the bytes differ.
//
// [Filled] sets each string and number to a value of its own, and each
// bool at leaf index i to bit bit of i, so that over bits 0 to 5 any two
// bools differ in some value; lists get two elements, maps two entries.
// [Emptied] replaces every list and map with an empty one.
package fill

import (
	"fmt"
	"reflect"
	"testing"
)

// TrickyText has every byte class encoding/json writes a string's bytes
// by: safe ASCII, quotes, HTML's three, control bytes, invalid UTF-8,
// the two separators JavaScript does not take, and text beyond ASCII.
const TrickyText = "a\"\\/<>&\b\f\n\r\t\x00\x1f\x7f\xff\xc3 \u2028\u2029é😀"

// written reports whether encoding/json writes the field f: exported,
// and not tagged "-".
func written(f reflect.StructField) bool {
	return f.IsExported() && f.Tag.Get("json") != "-"
}

// Filled is a value of type T with every field encoding/json writes set
// (written), nested ones too, for variant bit. A kind it has no value for fails t.
func Filled[T any](t testing.TB, bit uint) T {
	var v T
	(&filler{bit: bit, t: t}).fill(reflect.ValueOf(&v).Elem())
	return v
}

// Emptied replaces every list and map in v that encoding/json writes,
// nested ones too, with an empty one: [] and {}, which encoding/json tells from nil.
func Emptied(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			Emptied(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if written(v.Type().Field(i)) {
				Emptied(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	}
}

type filler struct {
	bit  uint
	next int
	t    testing.TB
}

func (f *filler) fill(v reflect.Value) {
	f.next++
	n := f.next
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", n))
	case reflect.Bool:
		v.SetBool(n>>f.bit&1 == 1)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n) * 1_000_003)
	case reflect.Uint64:
		v.SetUint(uint64(n) << 40)
	case reflect.Float64:
		v.SetFloat(float64(n) / 7)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if written(v.Type().Field(i)) {
				f.fill(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(fmt.Sprintf("bytes %d \x00\xff", n)))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		f.fill(v.Index(0))
		f.fill(v.Index(1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			f.fill(k)
			f.fill(e)
			v.SetMapIndex(k, e)
		}
	default:
		f.t.Fatalf("the filler has no value for a %s (%s): give it one, and the codec too",
			v.Kind(), v.Type())
	}
}
