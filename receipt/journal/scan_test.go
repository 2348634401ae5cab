package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
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

// TestDenseDamageBounded reads a segment of forged headers each claiming
// a long payload that fails its checksum: the work is bounded, the record
// before them is read, and the rest is reported.
func TestDenseDamageBounded(t *testing.T) {
	good := encodeRecord(nil, "good", []byte("{}"))
	var data []byte
	data = append(data, good...)
	fake := forge(3, 1<<20, 0, nil)
	for len(data) < 8<<20 {
		data = append(data, fake...)
	}
	start := time.Now()
	rep, err := scanBytes(data, func(string, []byte) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if rep.Records != 1 || rep.Damaged != 1 {
		t.Fatalf("report %+v, want the good record and one damaged stretch", rep)
	}
	if d := rep.Damage[0]; d.Offset != int64(len(good)) || !d.Tail {
		t.Errorf("damage %v, want a tail from %d", d, len(good))
	}
	if took > 20*time.Second {
		t.Errorf("scan of 8 MiB of forged headers took %v", took)
	}
	t.Logf("8 MiB of forged headers read in %v: %v", took, rep.Damage[0].Why)
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
