package jsonenc

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit/fill"
)

// fields has a field of each kind an Encoder writes, each omitempty form
// beside its plain one.
type fields struct {
	S     string    `json:"s"`
	SO    string    `json:"so,omitempty"`
	I     int64     `json:"i"`
	IO    int64     `json:"io,omitempty"`
	B     bool      `json:"b"`
	BO    bool      `json:"bo,omitempty"`
	F     float64   `json:"f"`
	FO    float64   `json:"fo,omitempty"`
	Raw   []byte    `json:"raw"`
	T     time.Time `json:"t"`
	L     []string  `json:"l"`
	LO    []string  `json:"lo,omitempty"`
	Empty *fields   `json:"empty"`
}

func (v *fields) encode(e *Encoder) {
	e.Open()
	e.Str("s", v.S)
	e.StrOmit("so", v.SO)
	e.Int("i", v.I)
	e.IntOmit("io", v.IO)
	e.Bool("b", v.B)
	e.BoolOmit("bo", v.BO)
	e.Float("f", v.F)
	e.FloatOmit("fo", v.FO)
	e.Bytes("raw", v.Raw)
	e.Time("t", v.T)
	e.Strings("l", v.L)
	e.StringsOmit("lo", v.LO)
	e.Null("empty") // the tests never set it
	e.Close()
}

// FuzzEncoder: an Encoder writes encoding/json's bytes for any text,
// number, bytes and time in a field of each kind, set or left empty, and
// fails where encoding/json fails (a float that is not finite, a time
// outside the years 0 to 9999): Err is set, and its callers append
// nothing.
func FuzzEncoder(f *testing.F) {
	f.Add(fill.TrickyText, int64(3), 0.531, []byte("\x00\xff"), int64(1764954245), 0, true)
	f.Add("", int64(0), 1e-7, []byte(nil), int64(-62135596800), -34200, false)
	f.Add("\xed\xa0\x80", int64(-1), 1e21, []byte{}, int64(253402300800), 50400, true)
	f.Add("x", int64(1), math.Inf(1), []byte("y"), int64(0), 0, false)
	f.Fuzz(func(t *testing.T, s string, n int64, x float64, raw []byte, sec int64, zone int,
		set bool) {
		v := fields{S: s, I: n, F: x, Raw: raw, B: set,
			T: time.Unix(sec, n%1e9).In(time.FixedZone(s, zone)), L: []string{s}}
		if set {
			v.SO, v.IO, v.BO, v.FO, v.LO = s, n, true, x, []string{s, s}
		}
		want, wantErr := json.Marshal(&v)
		e := &Encoder{B: []byte("x")}
		v.encode(e)
		if (e.Err != nil) != (wantErr != nil) {
			t.Fatalf("Err %v, encoding/json's %v", e.Err, wantErr)
		}
		if e.Err == nil && !bytes.Equal(e.B, append([]byte("x"), want...)) {
			t.Fatalf("the Encoder writes\n%q\nencoding/json\n%q", e.B, want)
		}
		if got, want := QuotedLen(s), len(AppendString(nil, s)); got != want {
			t.Fatalf("QuotedLen(%q) = %d, AppendString writes %d bytes", s, got, want)
		}
	})
}

// TestQuotedLen: QuotedLen is the length AppendString writes, and
// AppendString writes what encoding/json writes, for every byte alone,
// each class of byte (fill.TrickyText), a rune cut short, a lone
// surrogate and a U+FFFD that is one (written as it is). The control:
// text that needs no escape is its length and its quotes.
func TestQuotedLen(t *testing.T) {
	texts := []string{"", "hello, world", fill.TrickyText, "\xe2\x80", "\xed\xa0\x80", "\ufffd",
		strings.Repeat("\u2028\x01\xff", 3)}
	for c := range 256 {
		texts = append(texts, string([]byte{byte(c)}))
	}
	for _, s := range texts {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
		if n := QuotedLen(s); n != len(want) {
			t.Errorf("QuotedLen(%q) = %d, encoding/json writes %d bytes", s, n, len(want))
		}
	}
	if n := QuotedLen("plain text"); n != len("plain text")+2 {
		t.Errorf("QuotedLen of plain text = %d, want %d", n, len("plain text")+2)
	}
}

// TestEncoderFloatBounds: a float at either bound of encoding/json's
// plain form and beside it (1e-6 is plain, below it an exponent; 1e21 an
// exponent, below it plain), of either sign, is written as encoding/json
// writes it.
func TestEncoderFloatBounds(t *testing.T) {
	for _, v := range []float64{1e-6, math.Nextafter(1e-6, 0), 1e21, math.Nextafter(1e21, 0),
		-1e-6, -math.Nextafter(1e-6, 0), -1e21, -math.Nextafter(1e21, 0), 0, 1} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		e := &Encoder{}
		e.Float("f", v)
		if got := string(e.B); e.Err != nil || got != `"f":`+string(want) {
			t.Errorf("Float(%v) writes %s (%v), encoding/json %s", v, got, e.Err, want)
		}
	}
}

// TestEncoderKeepsTheFirstError: of two values JSON has no form for, Err
// is the first's, which names its field; a value written after it
// changes nothing. The control: one such value alone is Err.
func TestEncoderKeepsTheFirstError(t *testing.T) {
	e := &Encoder{}
	e.Float("second", math.NaN())
	if e.Err == nil || !strings.Contains(e.Err.Error(), "field second") {
		t.Fatalf("Err %v, want the NaN of field second", e.Err)
	}
	e = &Encoder{}
	e.Float("first", math.Inf(1))
	e.Float("fine", 1)
	e.Time("second", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	e.Float("third", math.NaN())
	if e.Err == nil || !strings.Contains(e.Err.Error(), "field first") {
		t.Errorf("Err %v, want the first value's: field first", e.Err)
	}
}
