package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeJournal appends n records k-0.. to a new journal in dir and
// returns the path of its segment and each record's offset.
func writeJournal(t *testing.T, dir string, n int) (string, []int64) {
	t.Helper()
	j := mustOpen(t, dir, Options{})
	var offs []int64
	var off int64
	for i := range n {
		offs = append(offs, off)
		if err := j.Append(keyOf("k", i), payloadOf("k", i)); err != nil {
			t.Fatal(err)
		}
		off += int64(headerSize + len(keyOf("k", i)) + len(payloadOf("k", i)))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, segmentName(1)), offs
}

// wantKeys checks the records read are k-i for i in want, in order.
func wantKeys(t *testing.T, got []record, want []int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].key != keyOf("k", w) || got[i].payload != string(payloadOf("k", w)) {
			t.Errorf("record %d = %q, want %q", i, got[i].key, keyOf("k", w))
		}
	}
}

func seq(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func TestTornTail(t *testing.T) {
	dir := t.TempDir()
	seg, offs := writeJournal(t, dir, 10)
	cut := offs[9] + 30 // into the last record's key
	if err := os.Truncate(seg, cut); err != nil {
		t.Fatal(err)
	}
	got, rep := readAll(t, dir)
	wantKeys(t, got, seq(0, 9))
	if rep.Damaged != 1 || !rep.Damage[0].Tail || rep.Damage[0].Offset != offs[9] || rep.Damage[0].Length != cut-offs[9] {
		t.Fatalf("report %+v, want one damaged tail at %d of %d bytes", rep, offs[9], cut-offs[9])
	}

	// Garbage after the cut record: still one damaged tail.
	f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := append(bytes.Repeat([]byte{0}, 100), magic[:]...)
	garbage = append(garbage, "not a record"...)
	if _, err := f.Write(garbage); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, rep = readAll(t, dir)
	wantKeys(t, got, seq(0, 9))
	if rep.Damaged != 1 || !rep.Damage[0].Tail || rep.Damage[0].Length != cut-offs[9]+int64(len(garbage)) {
		t.Fatalf("report %+v, want one damaged tail over the cut record and the garbage", rep)
	}

	// A journal opened again appends after the damage, and the record is
	// read: the damage is then in the middle.
	j := mustOpen(t, dir, Options{})
	if err := j.Append(keyOf("k", 10), payloadOf("k", 10)); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, rep = readAll(t, dir)
	wantKeys(t, got, append(seq(0, 9), 10))
	if rep.Damaged != 1 || rep.Damage[0].Tail || rep.Damage[0].Offset != offs[9] {
		t.Fatalf("report %+v, want one damaged stretch at %d before the new record", rep, offs[9])
	}
}

func TestChecksumMismatch(t *testing.T) {
	tests := []struct {
		name    string
		at      func(off int64) int64 // the byte of record 5 to flip
		wantWhy string
	}{
		{name: "payload", at: func(off int64) int64 { return off + headerSize + 40 }, wantWhy: "record checksum mismatch"},
		{name: "key", at: func(off int64) int64 { return off + headerSize + 1 }, wantWhy: "record checksum mismatch"},
		{name: "length", at: func(off int64) int64 { return off + 9 }, wantWhy: "header checksum mismatch"},
		{name: "magic", at: func(off int64) int64 { return off + 1 }, wantWhy: "no record magic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			seg, offs := writeJournal(t, dir, 10)
			data, err := os.ReadFile(seg)
			if err != nil {
				t.Fatal(err)
			}
			data[tt.at(offs[5])] ^= 0x01
			if err := os.WriteFile(seg, data, 0o600); err != nil {
				t.Fatal(err)
			}
			got, rep := readAll(t, dir)
			wantKeys(t, got, append(seq(0, 5), seq(6, 10)...))
			if rep.Damaged != 1 {
				t.Fatalf("report %+v, want one damaged stretch", rep)
			}
			d := rep.Damage[0]
			if d.Offset != offs[5] || d.Length != offs[6]-offs[5] || d.Tail || d.Why != tt.wantWhy {
				t.Errorf("damage %v, want record 5 (%d bytes at %d): %s", d, offs[6]-offs[5], offs[5], tt.wantWhy)
			}
		})
	}
}

// forge returns a record with any lengths and flags, its header checksum
// right, so that only the bound under test refuses it.
func forge(keyLen, payloadLen uint32, flags byte, body []byte) []byte {
	b := append([]byte{}, magic[:]...)
	b = append(b, formatVersion, flags)
	b = binary.LittleEndian.AppendUint16(b, uint16(keyLen))
	b = binary.LittleEndian.AppendUint32(b, payloadLen)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(body, castagnoli()))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
	return append(b, body...)
}

func TestSizeBounds(t *testing.T) {
	okKey := []byte("key")
	tests := []struct {
		name        string
		rec         []byte
		wantRecords int
		wantWhy     string
	}{
		{name: "control", rec: forge(3, 2, 0, append(okKey, "{}"...)), wantRecords: 1},
		{name: "payload over the bound", rec: forge(3, MaxPayloadBytes+1, 0, okKey), wantWhy: "payload length 8388609 over 8388608"},
		{name: "payload length 4 GiB", rec: forge(3, 0xFFFFFFFF, 0, okKey), wantWhy: "payload length 4294967295 over 8388608"},
		{name: "empty key", rec: forge(0, 2, 0, []byte("{}")), wantWhy: "key length 0 out of bounds"},
		{name: "key over the bound", rec: forge(MaxKeyBytes+1, 0, 0, bytes.Repeat([]byte("k"), MaxKeyBytes+1)), wantWhy: "key length 257 out of bounds"},
		{name: "key not printable", rec: forge(3, 0, 0, []byte("k\x00y")), wantWhy: "key is not printable ASCII"},
		{name: "unknown flags", rec: forge(3, 0, 1, okKey), wantWhy: "unknown flags 0x1"},
		{name: "runs past the end", rec: forge(3, 100, 0, okKey), wantWhy: "record of 123 bytes runs past the end of the segment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := scanBytes(tt.rec, func(string, []byte) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if rep.Records != tt.wantRecords {
				t.Errorf("%d records, want %d", rep.Records, tt.wantRecords)
			}
			why := ""
			if rep.Damaged > 0 {
				why = rep.Damage[0].Why
			}
			if why != tt.wantWhy {
				t.Errorf("damage %q, want %q", why, tt.wantWhy)
			}
		})
	}
}

// TestNotSegmentsIgnored puts files that are not segments beside one:
// only the segment is read.
func TestNotSegmentsIgnored(t *testing.T) {
	dir := t.TempDir()
	writeJournal(t, dir, 3)
	other := t.TempDir()
	writeJournal(t, other, 5)
	for _, name := range []string{"notes.txt", "1.journal", "00000002.journal.tmp", "0000000x.journal", ".00000002.journal", "000000002.journal"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("stray"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "00000003.journal"), 0o700); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(other, segmentName(1)), filepath.Join(dir, "00000004.journal")); err != nil {
			t.Fatal(err)
		}
	}
	got, rep := readAll(t, dir)
	wantKeys(t, got, seq(0, 3))
	if rep.Segments != 1 || rep.Damaged != 0 {
		t.Errorf("report %+v, want one segment read, no damage", rep)
	}
	// The writer too passes over them: it appends to segment 1.
	j := mustOpen(t, dir, Options{})
	if err := j.Append(keyOf("k", 3), payloadOf("k", 3)); err != nil {
		t.Fatal(err)
	}
	if seg := filepath.Base(j.Stats().Segment); seg != segmentName(1) {
		t.Errorf("appending to %s, want %s", seg, segmentName(1))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ = readAll(t, dir)
	wantKeys(t, got, seq(0, 4))
}

func TestScanMissingDir(t *testing.T) {
	rep, err := Scan(filepath.Join(t.TempDir(), "absent"), func(string, []byte) error {
		t.Error("a record in a missing directory")
		return nil
	})
	if err != nil || rep.Segments != 0 {
		t.Errorf("Scan(missing) = %+v, %v; want nothing, no error", rep, err)
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	dir := t.TempDir()
	writeJournal(t, dir, 5)
	stop := errors.New("stop")
	n := 0
	_, err := Scan(dir, func(string, []byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("Scan = %v after %d records, want the callback's error after 2", err, n)
	}
}

// scanKeys scans data as one segment and returns the keys of the records
// read, in order, and the report.
func scanKeys(t *testing.T, data []byte) ([]string, Report) {
	t.Helper()
	var keys []string
	rep, err := scanBytes(data, func(k string, _ []byte) error {
		keys = append(keys, k)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys, rep
}

// wantScan checks a scan read the records keys and found the one damaged
// stretch want.
func wantScan(t *testing.T, keys []string, rep Report, wantKeys []string, want Damage) {
	t.Helper()
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("records %q, want %q", keys, wantKeys)
	}
	if rep.Damaged != 1 || len(rep.Damage) != 1 || rep.Damage[0] != want {
		t.Errorf("damage %v (%d stretches), want one: %v", rep.Damage, rep.Damaged, want)
	}
}

// TestDenseDamageBounded reads segments whose damage makes the scanner
// search or read bytes again and again: forged headers each claiming a
// long payload that fails its checksum, past the bound on the work (16
// times the segment and 16 MiB), are one damaged stretch from the first
// of them to the end; damage the bound allows for hides no record after
// it, be it magics packed one against the other (searched within one
// window) or a large record torn again and again before it went in whole
// (each torn copy reads the megabyte after it, more than 16 times the
// segment in all, less than 16 MiB more).
func TestDenseDamageBounded(t *testing.T) {
	good := encodeRecord(nil, "good", []byte("{}"))
	last := encodeRecord(nil, "last", []byte("{}"))
	fake := forge(3, 1<<20, 0, nil)
	forged := func(prefix []byte) []byte {
		data := append([]byte{}, prefix...)
		for len(data) < 8<<20 {
			data = append(data, fake...)
		}
		return data
	}
	magics := bytes.Repeat(magic[:], 12<<10)
	big := encodeRecord(nil, "big", bytes.Repeat([]byte("b"), 1<<20))
	torn := bytes.Repeat(big[:100], 20)
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name     string
		data     []byte
		wantKeys []string
		want     Damage // its Length is the rest of the segment when Tail is set
	}{
		{name: "forged headers after a record", data: forged(good), wantKeys: []string{"good"},
			want: Damage{Offset: int64(len(good)), Why: "record checksum mismatch", Tail: true}},
		{name: "forged headers from the start", data: forged(nil),
			want: Damage{Offset: 0, Why: "record checksum mismatch", Tail: true}},
		{name: "magics packed between two records", data: join(good, magics, last),
			wantKeys: []string{"good", "last"},
			want: Damage{Offset: int64(len(good)), Length: int64(len(magics)),
				Why: "header checksum mismatch"}},
		{name: "a large record torn 20 times", data: join(good, torn, big, last),
			wantKeys: []string{"good", "big", "last"},
			want: Damage{Offset: int64(len(good)), Length: int64(len(torn)),
				Why: "record checksum mismatch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			keys, rep := scanKeys(t, tt.data)
			took := time.Since(start)
			want := tt.want
			want.Path = "segment"
			if want.Tail {
				want.Length = int64(len(tt.data)) - want.Offset
			}
			wantScan(t, keys, rep, tt.wantKeys, want)
			if took > 20*time.Second {
				t.Errorf("scan of %d bytes took %v", len(tt.data), took)
			}
		})
	}
}

// TestTornTailAt cuts the last record of a segment at each bound of its
// header: a tail shorter than a header is an incomplete header, and a
// whole header whose record runs past the end of the segment says so.
// The records before it are read, and the tail is one damaged stretch.
func TestTornTailAt(t *testing.T) {
	var data []byte
	for i := range 2 {
		data = encodeRecord(data, keyOf("k", i), payloadOf("k", i))
	}
	last := encodeRecord(nil, keyOf("k", 2), payloadOf("k", 2))
	runsPast := fmt.Sprintf("record of %d bytes runs past the end of the segment", len(last))
	tests := []struct {
		name    string
		cut     int // the bytes of the last record left
		wantWhy string
	}{
		{name: "in the magic", cut: 2, wantWhy: "incomplete record header"},
		{name: "in the header", cut: 10, wantWhy: "incomplete record header"},
		{name: "a byte short of the header", cut: headerSize - 1,
			wantWhy: "incomplete record header"},
		{name: "the header whole", cut: headerSize, wantWhy: runsPast},
		{name: "a byte of the key", cut: headerSize + 1, wantWhy: runsPast},
		{name: "a byte short of the record", cut: len(last) - 1, wantWhy: runsPast},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys, rep := scanKeys(t, append(append([]byte{}, data...), last[:tt.cut]...))
			wantScan(t, keys, rep, []string{keyOf("k", 0), keyOf("k", 1)}, Damage{Path: "segment",
				Offset: int64(len(data)), Length: int64(tt.cut), Why: tt.wantWhy, Tail: true})
		})
	}
}

// TestDamageBeforeARecord puts bytes that are not a record before one:
// they are one damaged stretch from their first byte, named by what
// failed there whatever fails after it within them, and the record after
// them is read, even when its magic is the byte after the one that
// failed, or lies across the end of the window the search for it reads
// (k of its bytes in it) or right after it.
func TestDamageBeforeARecord(t *testing.T) {
	first := encodeRecord(nil, "first", []byte("{}"))
	torn := func(key string) []byte { return encodeRecord(nil, key, []byte(`{"pad":"xxxx"}`))[:30] }
	type damageCase struct {
		name    string
		before  []byte // the records before the damage
		damage  []byte
		wantWhy string
	}
	tests := []damageCase{
		{name: "a byte at the start", damage: []byte("x"), wantWhy: "no record magic"},
		{name: "a byte after a record", before: first, damage: []byte("x"),
			wantWhy: "no record magic"},
		{name: "two torn records at the start", damage: append(torn("t1"), torn("t2")...),
			wantWhy: "record checksum mismatch"},
		{name: "garbage then a torn record at the start",
			damage: append([]byte("xx"), torn("t1")...), wantWhy: "no record magic"},
	}
	// The search's first window begins at the damage's second byte: after
	// 1+windowSize-k bytes of damage, k bytes of the magic are in it.
	for k := range len(magic) {
		tests = append(tests, damageCase{
			name:    fmt.Sprintf("a magic %d bytes in the search's window", k),
			before:  first,
			damage:  bytes.Repeat([]byte("x"), 1+windowSize-k),
			wantWhy: "no record magic",
		})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data []byte
			data = append(data, tt.before...)
			data = append(data, tt.damage...)
			data = encodeRecord(data, "after", payloadOf("a", 1))
			data = encodeRecord(data, "last", []byte("{}"))
			wantKeys := []string{"after", "last"}
			if tt.before != nil {
				wantKeys = append([]string{"first"}, wantKeys...)
			}
			keys, rep := scanKeys(t, data)
			wantScan(t, keys, rep, wantKeys, Damage{Path: "segment", Offset: int64(len(tt.before)),
				Length: int64(len(tt.damage)), Why: tt.wantWhy})
		})
	}
}

func TestDamageString(t *testing.T) {
	d := Damage{Path: "p", Offset: 3, Length: 4, Why: "w", Tail: true}
	if got, want := d.String(), "p: damaged tail, 4 bytes at offset 3: w"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if !strings.Contains(Damage{Path: "p"}.String(), "damaged,") {
		t.Errorf("String of a stretch that is not a tail: %q", Damage{Path: "p"}.String())
	}
}
