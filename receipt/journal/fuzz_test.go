package journal

import (
	"bytes"
	"testing"
)

// FuzzScan reads any bytes as a segment: it never panics, every record it
// passes on is within the bounds and reads back the same once encoded
// again, and every byte is in a record, in a reported damaged stretch, or
// in zeros that run to the end (laid ahead of records, Options.Exclusive).
func FuzzScan(f *testing.F) {
	rec := encodeRecord(nil, "20260101T000000.000000000Z-abc", []byte(`{"run_id":"abc"}`))
	f.Add([]byte{})
	f.Add(rec)
	f.Add(append(append([]byte{}, rec...), rec...))
	f.Add(rec[:len(rec)-3])
	f.Add(append(append([]byte("garbage"), rec...), 0xFF, 'S', 'b'))
	f.Add(forge(3, MaxPayloadBytes+1, 0, []byte("key")))
	f.Add(append(append([]byte{}, rec...), make([]byte, 100)...))
	f.Add(append(append([]byte{}, rec[:30]...), make([]byte, 100)...))
	f.Add(append(append(make([]byte, 30), rec...), make([]byte, 10)...))
	f.Add(make([]byte, 7))
	f.Fuzz(func(t *testing.T, data []byte) {
		var again []byte
		var covered int64
		rep, err := scanBytes(data, func(key string, payload []byte) error {
			if !validKey(key) || len(payload) > MaxPayloadBytes {
				t.Fatalf("record out of bounds: key %q, %d bytes", key, len(payload))
			}
			again = encodeRecord(again, key, payload)
			covered += int64(headerSize + len(key) + len(payload))
			return nil
		})
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		if rep.Damaged > len(rep.Damage) {
			return // not all stretches listed: no total to check
		}
		for _, d := range rep.Damage {
			if d.Offset < 0 || d.Length <= 0 || d.Offset+d.Length > int64(len(data)) {
				t.Fatalf("damage out of the segment: %v", d)
			}
			covered += d.Length
		}
		if covered > int64(len(data)) {
			t.Fatalf("records and damage cover %d bytes of %d", covered, len(data))
		}
		tail := data[covered:]
		if bytes.Count(tail, []byte{0}) != len(tail) {
			t.Fatalf("records and damage cover %d bytes of %d, and the rest is not zeros",
				covered, len(data))
		}
		if rep.Damaged == 0 && !bytes.Equal(again, data[:len(data)-len(tail)]) {
			t.Fatalf("an undamaged segment does not encode back to itself")
		}
		rep2, err := scanBytes(again, func(string, []byte) error { return nil })
		if err != nil || rep2.Records != rep.Records || rep2.Damaged != 0 {
			t.Fatalf("records encoded again read as %+v, %v; want %d records", rep2, err, rep.Records)
		}
	})
}
