package ship

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sabline/sabline/receipt/journal"
)

// FuzzObjectIndex: the bytes of an object read from the bucket are the
// store's, not this replica's: on any of them parseObjectIndex returns an
// index whose record lies within them, or an error, and recordLen never
// claims less than a header.
func FuzzObjectIndex(f *testing.F) {
	good, _ := journal.AppendRecord(nil, indexKey, []byte(`{"replica":"r1","segment":1,"receipts":[{"key":"20260101T000000.000000000Z-0123456789abcdef.json","tenant":"acme","off":0,"len":40}]}`))
	good, _ = journal.AppendRecord(good, "20260101T000000.000000000Z-0123456789abcdef.json", []byte(`{}`))
	f.Add(good)
	f.Add(good[:30])
	notIndex, _ := journal.AppendRecord(nil, "other", []byte(`{}`))
	f.Add(notIndex)
	badJSON, _ := journal.AppendRecord(nil, indexKey, []byte(`{"receipts":[{"off":"x"}]}`))
	f.Add(badJSON)
	f.Add([]byte{0xFF, 'S', 'b', 'J', 1, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, data []byte) {
		if n := recordLen(data); n != 0 && n < 20 {
			t.Fatalf("recordLen = %d", n)
		}
		_, base, err := parseObjectIndex(data)
		if err == nil && (base <= 0 || base > int64(len(data))) {
			t.Fatalf("an index record of %d bytes in %d", base, len(data))
		}
	})
}

// FuzzParseDone: a journal's ship.done mark is a file anyone who can
// write the directory could have left: on any bytes parseDone accepts
// only 1 to 8 digits and an optional newline, and what it accepts reads
// back the same.
func FuzzParseDone(f *testing.F) {
	for _, s := range []string{"12\n", "0", "99999999\n", "", "\n", "1a", "123456789", "-1", "1\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ok := parseDone(data)
		if !ok {
			return
		}
		if len(data) > maxDoneBytes || n < 0 || n > 99999999 {
			t.Fatalf("parseDone(%q) = %d", data, n)
		}
		if got := strings.TrimSuffix(string(data), "\n"); strconv.Itoa(n) != strings.TrimLeft(got, "0") &&
			!(n == 0 && strings.Trim(got, "0") == "") {
			t.Fatalf("parseDone(%q) = %d, not the digits", data, n)
		}
	})
}

// FuzzParseLocator: a locator's key is listed from the bucket, which any
// writer of it could have filled: on any bytes parseLocator reads only
// times of 12 lower-case digits, first not after last, and the key of an
// object a Shipper writes (no other key of the bucket, no path out), and
// what it reads is written back the same.
func FuzzParseLocator(f *testing.F) {
	for _, s := range []string{
		"000000010000-000000010009/receipts/r1/0123456789abcdef/00000007.journal",
		"000000010000-000000010009/segments/r1/0123456789abcdef/00000007.journal",
		"000000010009-000000010000/receipts/r1/0123456789abcdef/00000007.journal",
		"000000010000-000000010009/probe/0123456789abcdef", "", "/", "-/",
		"000000010000-000000010009/receipts/../r1/0123456789abcdef/00000007.journal",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rest string) {
		l, ok := parseLocator(rest)
		if !ok {
			return
		}
		if l.first < 0 || l.first > l.last || l.last >= 1<<48 || !objectKeyOK(l.object) ||
			strings.Contains(l.object, "..") {
			t.Fatalf("parseLocator(%q) = %+v", rest, l)
		}
		if got := fmt.Sprintf("%012x-%012x/%s", l.first, l.last, l.object); got != rest {
			t.Fatalf("parseLocator(%q) = %+v, written back %q", rest, l, got)
		}
	})
}
