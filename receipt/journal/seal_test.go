package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestSeal: a sealed segment is never appended to again, sealing an empty
// segment makes none, and ScanSegment and ScanBytes give every record of
// a segment with where it lies, so that a copy made of those bytes alone
// reads back the same.
func TestSeal(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if n, err := j.Seal(); err != nil || n != 0 {
		t.Fatalf("Seal of an empty journal = %d, %v; want 0 (nothing sealed)", n, err)
	}
	for i := range 3 {
		if err := j.Append(fmt.Sprintf("a%d", i), []byte(fmt.Sprintf("one %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	sealed, err := j.Seal()
	if err != nil || sealed != 1 {
		t.Fatalf("Seal = %d, %v; want segment 1 sealed", sealed, err)
	}
	before, err := os.ReadFile(filepath.Join(dir, segmentName(1)))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := j.Seal(); err != nil || n != 1 {
		t.Fatalf("Seal with nothing appended since = %d, %v; want 1 again", n, err)
	}
	if err := j.Append("b0", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, segmentName(1)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("segment 1 changed after it was sealed: %d bytes, then %d", len(before), len(after))
	}
	if nums, err := Segments(dir); err != nil || fmt.Sprint(nums) != "[1 2]" {
		t.Errorf("Segments = %v, %v; want [1 2]", nums, err)
	}

	var copied []byte
	var keys []string
	rep, err := ScanSegment(dir, 1, func(key string, payload []byte, off, n int64) error {
		keys = append(keys, key)
		copied = append(copied, before[off:off+n]...)
		return nil
	})
	if err != nil || rep.Records != 3 || len(rep.Damage) != 0 {
		t.Fatalf("ScanSegment(1) = %+v, %v; want 3 records, no damage", rep, err)
	}
	if !bytes.Equal(copied, before) {
		t.Errorf("the records' offsets and lengths do not cover segment 1: %d of %d bytes", len(copied), len(before))
	}
	var again []string
	if _, err := ScanBytes(copied, func(key string, payload []byte, off, n int64) error {
		again = append(again, key+"="+string(payload))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(again) != "[a0=one 0 a1=one 1 a2=one 2]" {
		t.Errorf("ScanBytes of the copy = %v", again)
	}
	if rep, err := ScanSegment(dir, 9, func(string, []byte, int64, int64) error { return nil }); err != nil || rep.Records != 0 {
		t.Errorf("ScanSegment of a missing segment = %+v, %v; want no records, no error", rep, err)
	}
}

// TestAppendRecord: a record made for a copy is refused as Append refuses
// it, and reads back whole.
func TestAppendRecord(t *testing.T) {
	if _, err := AppendRecord(nil, "", []byte("x")); !errors.Is(err, ErrKey) {
		t.Errorf("AppendRecord with an empty key: %v, want ErrKey", err)
	}
	b, err := AppendRecord(nil, "k", []byte("v"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ScanBytes(b, func(key string, payload []byte, off, n int64) error {
		if key != "k" || string(payload) != "v" || off != 0 || n != int64(len(b)) {
			t.Errorf("read back %q=%q at %d+%d", key, payload, off, n)
		}
		return nil
	}); err != nil || got.Records != 1 {
		t.Errorf("ScanBytes = %+v, %v", got, err)
	}
}

// TestErr: a journal takes records until it is closed, and says so after.
func TestErr(t *testing.T) {
	j, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Err(); err != nil {
		t.Errorf("Err of an open journal = %v", err)
	}
	j.Close()
	if err := j.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("Err of a closed journal = %v, want ErrClosed", err)
	}
	if _, err := j.Seal(); !errors.Is(err, ErrClosed) {
		t.Errorf("Seal of a closed journal = %v, want ErrClosed", err)
	}
}
