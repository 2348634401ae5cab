package journal

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanSparseSegment: a segment of a huge size that holds little data
// (a sparse file: planted, or grown by a fault) is read in the time its
// data takes, not its size: its holes, which read as zeros, are passed
// over unread. Seen from outside: a sparse segment of 2 GiB with records
// at its start and after each of two holes, then a hole to its end, is
// read with every record, the two holes between records named as damage
// and the zeros at the end as none, reading under 1 MiB of it
// (the reader's own count of bytes read); Scan and an Index find the
// last record. The control: the same layout, 4 MiB with its zeros
// written, reads the same records and stretch, and every byte of it is
// read.
func TestScanSparseSegment(t *testing.T) {
	type layout struct{ middle, last, size int64 }
	write := func(t *testing.T, path string, l layout, sparse bool) {
		t.Helper()
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if !sparse {
			if _, err := f.Write(make([]byte, l.size)); err != nil {
				t.Fatal(err)
			}
		}
		for _, w := range []struct {
			at   int64
			data []byte
		}{
			{0, encodeRecord(nil, "first", []byte("1"))},
			{l.middle, encodeRecord(nil, "middle", []byte("2"))},
			{l.last, encodeRecord(nil, "last", []byte("3"))},
		} {
			if _, err := f.WriteAt(w.data, w.at); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Truncate(l.size); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name     string
		l        layout
		sparse   bool
		readMost int64 // -1: at least the segment's size
	}{
		{name: "sparse, 2 GiB", l: layout{1 << 30, 3 << 29, 2 << 30}, sparse: true, readMost: 1 << 20},
		{name: "zeros written, 4 MiB", l: layout{2 << 20, 3 << 20, 4 << 20}, readMost: -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, segmentName(1))
			write(t, path, tt.l, tt.sparse)
			f, fi, err := openToRead(path, "test")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if at, ok := dataFrom(f, 4096, fi.Size()); tt.sparse && (!ok || at == 4096) {
				t.Skip("this file system leaves no holes in a sparse file, or does not say where")
			}
			var rep Report
			var keys []string
			s := newScanner(&rep)
			budget := 16*fi.Size() + 2*MaxPayloadBytes
			if err := s.segment(f, fi.Size(), path, func(k string, _ []byte) error {
				keys = append(keys, k)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if want := []string{"first", "middle", "last"}; !slices.Equal(keys, want) {
				t.Errorf("read %v, want %v", keys, want)
			}
			// Zeros with a record after them are damage; zeros to the end
			// are not.
			first, middle := int64(len(encodeRecord(nil, "first", []byte("1")))),
				int64(len(encodeRecord(nil, "middle", []byte("2"))))
			want := []Damage{
				{Path: path, Offset: first, Length: tt.l.middle - first, Why: "no record magic"},
				{Path: path, Offset: tt.l.middle + middle, Length: tt.l.last - tt.l.middle - middle,
					Why: "no record magic"},
			}
			if !slices.Equal(rep.Damage, want) || rep.Damaged != 2 {
				t.Errorf("damage %v, want the zeros between records: %v", rep.Damage, want)
			}
			read := budget - s.budget
			if tt.readMost >= 0 && read > tt.readMost {
				t.Errorf("read %d bytes of a segment of %d holding %d of data, want at most %d",
					read, fi.Size(), 3*headerSize, tt.readMost)
			}
			if tt.readMost < 0 && read < fi.Size() {
				t.Errorf("read %d bytes of a segment of %d with its zeros written, want all",
					read, fi.Size())
			}
			found, err := Find(dir, "last")
			if err != nil || string(found) != "3" {
				t.Errorf("Find: %q, %v; want the last record", found, err)
			}
			x := NewIndex(func(k string) (string, bool) { return k, true }, 16)
			if k, p, err := x.Find(dir, fi.ModTime().Add(-1), "last"); err != nil || k != "last" ||
				string(p) != "3" {
				t.Errorf("Index.Find: %q %q, %v; want the last record", k, p, err)
			}
		})
	}
}
