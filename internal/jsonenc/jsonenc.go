// Package jsonenc writes Sabline's records as JSON without reflection:
// the bytes encoding/json writes for the same values, field by field.
// A worker writes its records and results with it in a process where
// encoding/json has met no type yet, and a store writes each receipt
// with it twice a run (reserved, then finished), where encoding/json's
// walk of the receipt's types by reflection, and its garbage, cost a
// pooled run more than the bytes.
//
// # Writing
//
// An [Encoder] appends to its bytes: [Encoder.Open] and [Encoder.Close]
// an object, one method per field by the field's kind, each taking the
// field's JSON name as its struct tag gives it, in the order of the
// struct's fields. A field whose tag has omitempty is written with the
// Omit form, which leaves it out when it is empty as encoding/json does.
// Strings are escaped as encoding/json escapes them by default (HTML's
// three characters too), a number as it writes it, a nil list or []byte
// as null. A value encoding/json refuses (a float that is not finite, a
// time outside the years 0 to 9999) is kept in [Encoder.Err], the
// first such, and the caller returns it with nothing appended.
//
// # Held to encoding/json
//
// Each type written with it is held to encoding/json's bytes by a test
// that sets every field in turn and by differential fuzzing, beside the
// type's writer (package wire for the worker's records, package receipt
// for the receipt): a field added to a struct and not to its writer
// fails them. The parts below the receipt that both write (a grant's
// uses, a file's digest, a confinement result, a budget) are written
// here, once.
package jsonenc

import (
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/program"
)

// Encoder appends JSON to B as encoding/json writes it.
type Encoder struct {
	B     []byte
	Err   error // the first value that could not be written
	comma bool  // a field was written in the object open now
}

// Open starts an object.
func (e *Encoder) Open() {
	e.B = append(e.B, '{')
	e.comma = false
}

// Close ends the object open now.
func (e *Encoder) Close() {
	e.B = append(e.B, '}')
	e.comma = true
}

// Name writes a field's name and its colon; its value follows.
func (e *Encoder) Name(n string) {
	if e.comma {
		e.B = append(e.B, ',')
	}
	e.B = append(e.B, '"')
	e.B = append(e.B, n...)
	e.B = append(e.B, '"', ':')
	e.comma = true
}

// Null writes a field whose value is null: a nil pointer's.
func (e *Encoder) Null(n string) {
	e.Name(n)
	e.B = append(e.B, "null"...)
}

// Str writes a string field.
func (e *Encoder) Str(n, s string) {
	e.Name(n)
	e.B = appendString(e.B, s)
}

// StrOmit writes a string field with omitempty.
func (e *Encoder) StrOmit(n, s string) {
	if s != "" {
		e.Str(n, s)
	}
}

// Int writes an integer field.
func (e *Encoder) Int(n string, v int64) {
	e.Name(n)
	e.B = strconv.AppendInt(e.B, v, 10)
}

// IntOmit writes an integer field with omitempty.
func (e *Encoder) IntOmit(n string, v int64) {
	if v != 0 {
		e.Int(n, v)
	}
}

// Key writes a map's key k as the name of the value that follows, quoted
// as encoding/json quotes it (AppendString): a key is data, a field's
// name is not.
func (e *Encoder) Key(k string) {
	if e.comma {
		e.B = append(e.B, ',')
	}
	e.B = append(appendString(e.B, k), ':')
	e.comma = true
}

// Uint writes an unsigned integer field.
func (e *Encoder) Uint(n string, v uint64) {
	e.Name(n)
	e.B = strconv.AppendUint(e.B, v, 10)
}

// Bool writes a bool field.
func (e *Encoder) Bool(n string, v bool) {
	e.Name(n)
	e.B = strconv.AppendBool(e.B, v)
}

// BoolOmit writes a bool field with omitempty.
func (e *Encoder) BoolOmit(n string, v bool) {
	if v {
		e.Bool(n, v)
	}
}

// Bytes writes a []byte field as encoding/json does: base64, or null
// when nil.
func (e *Encoder) Bytes(n string, v []byte) {
	e.Name(n)
	if v == nil {
		e.B = append(e.B, "null"...)
		return
	}
	e.B = append(e.B, '"')
	e.B = base64.StdEncoding.AppendEncode(e.B, v)
	e.B = append(e.B, '"')
}

// Float writes v as encoding/json does: the shortest decimal, with an
// exponent only below 1e-6 or from 1e21, the exponent's zero dropped. A
// value that is not finite is Err.
func (e *Encoder) Float(n string, v float64) {
	e.Name(n)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		e.fail(fmt.Errorf("field %s: %v is not a number JSON has", n, v))
		return
	}
	f := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		f = 'e'
	}
	e.B = strconv.AppendFloat(e.B, v, f, -1, 64)
	if k := len(e.B); f == 'e' && k >= 4 && e.B[k-4] == 'e' && e.B[k-3] == '-' && e.B[k-2] == '0' {
		e.B[k-2] = e.B[k-1]
		e.B = e.B[:k-1]
	}
}

// FloatOmit writes a float field with omitempty.
func (e *Encoder) FloatOmit(n string, v float64) {
	if v != 0 {
		e.Float(n, v)
	}
}

// Time writes t as its MarshalJSON does: RFC 3339 with the nanoseconds
// it has, quoted (its AppendText, the same form, written in place). A
// time that has no such form (a year outside 0 to 9999, an offset of a
// day or more) is Err.
func (e *Encoder) Time(n string, t time.Time) {
	e.Name(n)
	b, err := t.AppendText(append(e.B, '"'))
	if err != nil {
		e.fail(fmt.Errorf("field %s: %w", n, err))
		return
	}
	e.B = append(b, '"')
}

// Strings writes a list of strings: null when nil.
func (e *Encoder) Strings(n string, ss []string) {
	e.Name(n)
	if ss == nil {
		e.B = append(e.B, "null"...)
		return
	}
	e.B = append(e.B, '[')
	for i, s := range ss {
		if i > 0 {
			e.B = append(e.B, ',')
		}
		e.B = appendString(e.B, s)
	}
	e.B = append(e.B, ']')
}

// StringsOmit writes a list of strings with omitempty.
func (e *Encoder) StringsOmit(n string, ss []string) {
	if len(ss) > 0 {
		e.Strings(n, ss)
	}
}

// Each writes a list of T, each element by elem; an omitempty list
// (omit) is left out when it is empty, another is null when nil.
func Each[T any](e *Encoder, n string, omit bool, vs []T, elem func(*T)) {
	if omit && len(vs) == 0 {
		return
	}
	e.Name(n)
	if vs == nil {
		e.B = append(e.B, "null"...)
		return
	}
	e.B = append(e.B, '[')
	for i := range vs {
		if i > 0 {
			e.B = append(e.B, ',')
		}
		elem(&vs[i])
	}
	e.B = append(e.B, ']')
}

// fail keeps err when it is the first.
func (e *Encoder) fail(err error) {
	if e.Err == nil {
		e.Err = err
	}
}

// Usage writes a grant's uses.
func (e *Encoder) Usage(u *budget.Usage) {
	e.Open()
	e.Str("grant", u.Grant)
	e.Int("uses", int64(u.Uses))
	e.IntOmit("limit", int64(u.Limit))
	e.Close()
}

// FileDigest writes a file's digest.
func (e *Encoder) FileDigest(f *program.FileDigest) {
	e.Open()
	e.Str("path", f.Path)
	e.Str("sha256", f.SHA256)
	e.Close()
}

// Result writes a confinement result.
func (e *Encoder) Result(r *core.Result) {
	e.Open()
	e.Str("level", string(r.Level))
	e.Str("reason", r.Reason)
	e.Strings("layers", r.Layers)
	Each(e, "gaps", true, r.Gaps, e.Gap)
	e.Close()
}

// Gap writes a gap of a confinement result.
func (e *Encoder) Gap(g *core.Gap) {
	e.Open()
	e.Str("layer", g.Layer)
	e.Str("kind", string(g.Kind))
	e.Str("text", g.Text)
	e.Close()
}

// Budget writes a budget as its fields are named: it has no tags.
func (e *Encoder) Budget(b *budget.Budget) {
	e.Open()
	Each(e, "Items", false, b.Items, func(it *budget.Item) {
		e.Open()
		e.Str("Kind", string(it.Kind))
		e.Str("Access", string(it.Access))
		e.Str("Path", it.Path)
		e.Bool("UDP", it.UDP)
		e.Str("Host", it.Host)
		e.Int("Port", int64(it.Port))
		e.Str("Module", it.Module)
		e.Int("Limit", int64(it.Limit))
		e.Close()
	})
	e.Close()
}

// htmlSafe are the ASCII bytes encoding/json writes as they are in a
// string: not a control byte, a quote, a backslash, or <, > and &.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s quoted as encoding/json writes it, as [Encoder.Str]
// writes a field's value.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// QuotedLen is the length of s quoted as encoding/json writes it
// (AppendString), its quotes counted: a caller makes room for a large
// value once, rather than grow its buffer as it appends.
func QuotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case htmlSafe[c]:
				n++
			case c == '\\' || c == '"' || c == '\b' || c == '\f' || c == '\n' || c == '\r' ||
				c == '\t':
				n += 2
			default:
				n += len(`\u0000`)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' || r == utf8.RuneError && w == 1 {
			n += len(`\u0000`) // \u2028, \u2029, \ufffd
		} else {
			n += w
		}
		i += w
	}
	return n
}

// appendString appends s quoted as encoding/json writes it: invalid
// UTF-8 as U+FFFD, and U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += n
			continue
		}
		i += n
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
