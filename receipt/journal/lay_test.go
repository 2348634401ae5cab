package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// fileSize is the size of the file at path, read from outside the
// journal.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// appendPast appends records named name to j until they hold at least
// bytes, each waiting for its sync (AppendSync, which asks an Exclusive
// journal to lay zeros ahead), and returns how many it appended and the
// bytes they hold.
func appendPast(t *testing.T, j *Journal, name string, bytes int64) (int, int64) {
	t.Helper()
	return appendPastWith(t, j.AppendSync, name, bytes)
}

// appendPastWith is appendPast, each record appended with add.
func appendPastWith(t *testing.T, add func(string, []byte) error, name string,
	bytes int64) (int, int64) {
	t.Helper()
	var n int
	var held int64
	for ; held < bytes; n++ {
		if err := add(keyOf(name, n), payloadOf(name, n)); err != nil {
			t.Fatal(err)
		}
		held += int64(len(encodeRecord(nil, keyOf(name, n), payloadOf(name, n))))
	}
	return n, held
}

// TestLayAhead: an Exclusive journal whose synced records pass layFrom
// bytes has zeros in its file past its records (read from outside),
// writes the next record in place over them, reads back every record
// with no damage, and ends its file with its last record once closed.
// The controls: a journal without the option has files exactly the size
// of their records all along, and an Exclusive journal whose records are
// synced in the background (Append) lays no zeros.
func TestLayAhead(t *testing.T) {
	tests := []struct {
		name       string
		exclusive  bool
		background bool
		wantLaid   bool
	}{
		{name: "exclusive", exclusive: true, wantLaid: true},
		{name: "shared", exclusive: false, wantLaid: false},
		{name: "exclusive, synced in the background", exclusive: true, background: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, segmentName(1))
			j := mustOpen(t, dir, Options{Exclusive: tt.exclusive})
			defer j.Close()
			add := j.AppendSync
			if tt.background {
				add = j.Append
			}
			n, held := appendPastWith(t, add, "k", 4*layFrom)
			settled(j)
			size := fileSize(t, path)
			if laid := size > held; laid != tt.wantLaid {
				t.Fatalf("%d records of %d bytes in a file of %d: laid ahead %v, want %v",
					n, held, size, laid, tt.wantLaid)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if tail := data[held:]; bytes.Count(tail, []byte{0}) != len(tail) {
				t.Fatalf("the %d bytes past the records are not all zeros", len(tail))
			}
			small := encodeRecord(nil, "small", []byte("{}"))
			if err := j.Append("small", []byte("{}")); err != nil {
				t.Fatal(err)
			}
			// In place: within the file as it was, zeros before.
			at := held
			held += int64(len(small))
			if inPlace := held <= size; inPlace != tt.wantLaid {
				t.Errorf("a record at %d of %d bytes in a file of %d: in place %v, want %v",
					at, len(small), size, inPlace, tt.wantLaid)
			}
			settled(j)
			if got := fileSize(t, path); !tt.wantLaid && got != held {
				t.Errorf("after a record of %d bytes the file holds %d, want %d", len(small), got, held)
			}
			recs, rep := readAll(t, dir)
			if len(recs) != n+1 || rep.Damaged != 0 || recs[n].key != "small" {
				t.Fatalf("read %d records, %v; want %d and no damage", len(recs), rep.Damage, n+1)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if got := fileSize(t, path); got != held {
				t.Errorf("closed, the file holds %d bytes, want its records' %d", got, held)
			}
		})
	}
}

// TestLayAheadSealAndReopen: a sealed segment of an Exclusive journal
// ends with its last record; one opened again begins a segment of its
// own, where a journal without the option appends to the newest.
func TestLayAheadSealAndReopen(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{Exclusive: true})
	_, held := appendPast(t, j, "k", 4*layFrom)
	sealed, err := j.Seal()
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, filepath.Join(dir, segmentName(sealed))); got != held {
		t.Errorf("sealed segment %d holds %d bytes, want its records' %d", sealed, got, held)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name        string
		exclusive   bool
		wantSegment int
	}{
		{name: "exclusive", exclusive: true, wantSegment: sealed + 2},
		{name: "shared", exclusive: false, wantSegment: sealed + 2},
	} {
		j := mustOpen(t, dir, Options{Exclusive: tt.exclusive})
		if err := j.Append("again", []byte("{}")); err != nil {
			t.Fatal(err)
		}
		if got := j.Stats().SegmentNum; got != tt.wantSegment {
			t.Errorf("%s: appends go to segment %d, want %d", tt.name, got, tt.wantSegment)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestScanZeros: zeros that run to a segment's end are passed over
// without a word, whatever precedes them; zeros followed by a record, or
// a fragment followed by zeros, are damage, and the records around them
// are read.
func TestScanZeros(t *testing.T) {
	rec := func(key string) []byte { return encodeRecord(nil, key, []byte(`{"k":"`+key+`"}`)) }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	zeros := func(n int) []byte { return make([]byte, n) }
	a, b := rec("a"), rec("b")
	tests := []struct {
		name       string
		data       []byte
		wantKeys   string
		wantDamage string // "offset+length tail" of each stretch
	}{
		{name: "records then zeros", data: cat(a, b, zeros(5000)), wantKeys: "a b"},
		{name: "zeros alone", data: zeros(19), wantKeys: ""},
		{name: "zeros shorter than a header", data: cat(a, zeros(3)), wantKeys: "a"},
		{name: "a fragment then zeros", data: cat(a, b[:len(b)-5], zeros(100)), wantKeys: "a",
			wantDamage: fmt.Sprintf("%d+%d tail", len(a), len(b)-5+100)},
		{name: "zeros then a record", data: cat(a, zeros(100), b), wantKeys: "a b",
			wantDamage: fmt.Sprintf("%d+100", len(a))},
		{name: "zeros past the window", data: cat(a, zeros(3*windowSize+7)), wantKeys: "a"},
		{name: "a byte past the window's zeros", data: cat(a, zeros(2*windowSize), []byte{1}),
			wantKeys: "a", wantDamage: fmt.Sprintf("%d+%d tail", len(a), 2*windowSize+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var keys []string
			rep, err := scanBytes(tt.data, func(k string, _ []byte) error {
				keys = append(keys, k)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var damage []string
			for _, d := range rep.Damage {
				s := fmt.Sprintf("%d+%d", d.Offset, d.Length)
				if d.Tail {
					s += " tail"
				}
				damage = append(damage, s)
			}
			if got := strings.Join(keys, " "); got != tt.wantKeys {
				t.Errorf("records %q, want %q", got, tt.wantKeys)
			}
			if got := strings.Join(damage, ", "); got != tt.wantDamage {
				t.Errorf("damage %q, want %q", got, tt.wantDamage)
			}
		})
	}
}

// TestIndexReadsRecordsWrittenInPlace: an Index finds a record an
// Exclusive journal wrote in place after the index last read its
// segment, with the file's size unchanged and its modification time set
// back to what the index saw (as a coarse clock leaves it), reading only
// that record; a name never appended is not found.
func TestIndexReadsRecordsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, segmentName(1))
	// Zeros are laid up to the segment's bound and no further: the
	// record below lands in them, and nothing moves the file's size.
	j := mustOpen(t, dir, Options{Exclusive: true, SegmentBytes: 64 << 10})
	defer j.Close()
	n, _ := appendPast(t, j, "k", 40<<10)
	settled(j)
	x := NewIndex(func(key string) (string, bool) { return key, true }, 1<<20)
	if _, _, err := x.Find(dir, time.Time{}, keyOf("k", n-1)); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	read := x.read
	late := encodeRecord(nil, "late", []byte(`{"late":true}`))
	if err := j.Append("late", []byte(`{"late":true}`)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got != before.Size() {
		t.Fatalf("the record moved the file's size from %d to %d: not written in place",
			before.Size(), got)
	}
	key, payload, err := x.Find(dir, time.Time{}, "late")
	if err != nil || key != "late" || string(payload) != `{"late":true}` {
		t.Fatalf("Find(late) = %q, %q, %v; want the record written in place", key, payload, err)
	}
	if got := x.read - read; got != int64(len(late)) {
		t.Errorf("the index read %d bytes to find it, want the record's %d", got, len(late))
	}
	if _, _, err := x.Find(dir, time.Time{}, "never"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(never) = %v, want ErrNotFound", err)
	}
}

// recordsOf is records k-0, k-1, ... of at least n bytes, as a segment
// holds them.
func recordsOf(n int) []byte {
	var held []byte
	for i := 0; len(held) < n; i++ {
		held = encodeRecord(held, keyOf("k", i), payloadOf("k", i))
	}
	return held
}

// scanOf scans the segment of size bytes in r from its start: the keys
// of the records it read, in order, its report, and where it stopped.
func scanOf(t *testing.T, r io.ReaderAt, size int) ([]string, Report, int64) {
	t.Helper()
	var keys []string
	var rep Report
	end, err := newScanner(&rep).segmentFrom(r, 0, int64(size), "segment",
		func(k string, _ []byte) error {
			keys = append(keys, k)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return keys, rep, end
}

// changingSegment is a segment whose bytes change after its first read,
// as a file written in place changes under a reader.
type changingSegment struct {
	data  []byte
	reads int
	then  func(data []byte) // after the first read
}

func (c *changingSegment) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p, c.data[off:])
	if c.reads++; c.reads == 1 {
		c.then(c.data)
	}
	return n, nil
}

// TestScanRecordsWrittenWhileRead: two records written in place, one
// after the other, over zeros the scan had already read, are read in
// order, and no damage is reported: the zeros are read again, afresh,
// before what follows them. Small records, read again at the zeros that
// seemed to run to the end; and a first record longer than the scan's
// window, whose successor the scan finds past the window before it
// looks at the zeros again.
func TestScanRecordsWrittenWhileRead(t *testing.T) {
	held := recordsOf(20 << 10)
	p := len(held)
	for _, tt := range []struct {
		name  string
		first int // payload bytes of the first record
	}{
		{name: "small records", first: 10},
		{name: "a first record past the window", first: windowSize + 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r1 := encodeRecord(nil, "r1", bytes.Repeat([]byte("1"), tt.first))
			r2 := encodeRecord(nil, "r2", []byte(`{"r":2}`))
			data := append(append([]byte{}, held...), make([]byte, 4*windowSize)...)
			seg := &changingSegment{data: data, then: func(d []byte) {
				copy(d[p:], r1)
				copy(d[p+len(r1):], r2)
			}}
			keys, rep, end := scanOf(t, seg, len(data))
			last := strings.Join(keys[len(keys)-2:], " ")
			if want := p + len(r1) + len(r2); last != "r1 r2" || rep.Damaged != 0 || int(end) != want {
				t.Errorf("last records %q, end %d, damage %v; want \"r1 r2\", %d and none",
					last, end, rep.Damage, want)
			}
		})
	}
}

// TestScanSegmentCut: a segment cut to its last record (Close) after a
// reader measured its size, zeros and all, reads as the records it
// holds, with no error and no damage.
func TestScanSegmentCut(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{Exclusive: true})
	n, held := appendPast(t, j, "k", 4*layFrom)
	settled(j)
	path := filepath.Join(dir, segmentName(1))
	f, fi, err := openToRead(path, "scan")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if fi.Size() <= held || fileSize(t, path) != held {
		t.Fatalf("measured %d bytes, now %d, records %d: want zeros measured, then cut", fi.Size(),
			fileSize(t, path), held)
	}
	var rep Report
	end, err := newScanner(&rep).segmentFrom(f, 0, fi.Size(), path, func(string, []byte) error { return nil })
	if err != nil || rep.Records != n || rep.Damaged != 0 || end != held {
		t.Errorf("scan: %v, %d records, damage %v, end %d; want no error, %d records, none, %d",
			err, rep.Records, rep.Damage, end, n, held)
	}
}

// TestIndexWhileAppending: an Index looking up, and Scan reading, while
// an Exclusive journal appends, round after round: afterwards the same
// Index finds every record whose Append returned, and no Scan reported
// damage before a segment's end.
func TestIndexWhileAppending(t *testing.T) {
	const rounds, records = 8, 3000
	for round := range rounds {
		dir := t.TempDir()
		j := mustOpen(t, dir, Options{Exclusive: true})
		x := NewIndex(func(key string) (string, bool) { return key, true }, 1<<20)
		var stop atomic.Bool
		var damaged atomic.Int64
		var wg sync.WaitGroup
		wg.Go(func() {
			for !stop.Load() {
				_, _, _ = x.Find(dir, time.Time{}, "never")
				rep, _ := Scan(dir, func(string, []byte) error { return nil })
				for _, d := range rep.Damage {
					if !d.Tail {
						damaged.Add(1)
					}
				}
			}
		})
		for i := range records {
			appendOf := j.Append
			if i%8 == 7 {
				appendOf = j.AppendSync // which asks for zeros laid ahead
			}
			if err := appendOf(keyOf("k", i), []byte(`{"small":1}`)); err != nil {
				t.Fatal(err)
			}
		}
		stop.Store(true)
		wg.Wait()
		missing := 0
		for i := range records {
			if _, _, err := x.Find(dir, time.Time{}, keyOf("k", i)); err != nil {
				missing++
			}
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if missing > 0 || damaged.Load() > 0 {
			t.Fatalf("round %d: %d of %d records not found; %d damaged stretches before an end",
				round, missing, records, damaged.Load())
		}
	}
}

// TestIndexTornTailReadOnce: a segment that ends in a record cut short,
// last written long before, is read once however many lookups follow;
// the control, the same segment once the bytes where the read stopped
// change, is read again. Written just now, the cut record may be one
// being written: each lookup reads it again.
func TestIndexTornTailReadOnce(t *testing.T) {
	for _, tt := range []struct {
		name      string
		written   time.Duration // before the lookups
		wantReads int
	}{
		{name: "settled", written: time.Hour, wantReads: 1},
		{name: "just written", written: 0, wantReads: 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, segmentName(1))
			a := encodeRecord(nil, "a", []byte(`{"a":1}`))
			b := encodeRecord(nil, "b", bytes.Repeat([]byte("x"), 5000))
			if err := os.WriteFile(path, append(a, b[:4000]...), 0o600); err != nil {
				t.Fatal(err)
			}
			when := time.Now().Add(-tt.written)
			if err := os.Chtimes(path, when, when); err != nil {
				t.Fatal(err)
			}
			x := NewIndex(func(key string) (string, bool) { return key, true }, 1<<20)
			for range 5 {
				if _, _, err := x.Find(dir, time.Time{}, "a"); err != nil {
					t.Fatal(err)
				}
			}
			if x.reads != tt.wantReads {
				t.Errorf("5 lookups read the segment %d times, want %d", x.reads, tt.wantReads)
			}
			c := encodeRecord(nil, "c", []byte(`{"c":1}`))
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteAt(c, int64(len(a)))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, when, when); err != nil {
				t.Fatal(err)
			}
			if _, _, err := x.Find(dir, time.Time{}, "c"); err != nil || x.reads != tt.wantReads+1 {
				t.Errorf("Find(c) = %v after %d reads; want it found, read once more", err, x.reads)
			}
		})
	}
}

// TestIndexRecordFinishedInPlace: a record the Index read in part, its
// first bytes written and the rest still the zeros laid ahead (as a read
// beside the record's write in place can find it), is found once the rest
// is written, the file's size and time as they were: a record of JSON,
// and one whose payload holds a run of zeros where the read stopped,
// read just after the write began (the Index reads on from the damage);
// and a record of JSON whose write began long before the read (a writer
// held up in its middle), found by the zeros after it, gone.
func TestIndexRecordFinishedInPlace(t *testing.T) {
	zeroRun := append(append(bytes.Repeat([]byte("r"), 2000), make([]byte, 64)...),
		bytes.Repeat([]byte("r"), 2000)...)
	for _, tt := range []struct {
		name    string
		payload []byte
		tear    int           // bytes of the record written when the Index read it
		began   time.Duration // the write's time, before the read
	}{
		{name: "json", payload: bytes.Repeat([]byte("r"), 5000), tear: 3000},
		{name: "zeros in the payload", payload: zeroRun, tear: headerSize + 1 + 2000 + 32},
		{name: "json, begun long before", payload: bytes.Repeat([]byte("r"), 5000), tear: 3000,
			began: time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, segmentName(1))
			a := encodeRecord(nil, "a", []byte(`{"a":1}`))
			r := encodeRecord(nil, "r", tt.payload)
			data := append(append(append([]byte{}, a...), r[:tt.tear]...), make([]byte, 8000)...)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			began := time.Now().Add(-tt.began)
			if err := os.Chtimes(path, began, began); err != nil {
				t.Fatal(err)
			}
			x := NewIndex(func(key string) (string, bool) { return key, true }, 1<<20)
			if _, _, err := x.Find(dir, time.Time{}, "r"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Find(r) of a record written in part = %v, want ErrNotFound", err)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteAt(r[tt.tear:], int64(len(a)+tt.tear))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if key, _, err := x.Find(dir, time.Time{}, "r"); err != nil || key != "r" {
				t.Errorf("Find(r) once finished = %q, %v; want it found", key, err)
			}
		})
	}
}

// scriptedSegment is a segment whose bytes change when its k-th read at
// off begins, as a write in place finishes under a reader.
type scriptedSegment struct {
	data  []byte
	off   int64
	k     int
	reads int
	then  func(data []byte)
}

func (c *scriptedSegment) ReadAt(p []byte, off int64) (int, error) {
	if off == c.off {
		if c.reads++; c.reads == c.k {
			c.then(c.data)
		}
	}
	return copy(p, c.data[off:]), nil
}

// TestScanRecordTornAcrossTwoReads: a record the scan finds cut short at
// its first read and at its second (taken before a damaged tail is
// reported), finished with another after it just before the scan reads
// on, is read, and so is the other, in order, with no damage.
func TestScanRecordTornAcrossTwoReads(t *testing.T) {
	held := recordsOf(20 << 10)
	p := len(held)
	r1 := encodeRecord(nil, "r1", bytes.Repeat([]byte("1"), 3000))
	r2 := encodeRecord(nil, "r2", []byte(`{"r":2}`))
	data := append(append([]byte{}, held...), make([]byte, 4*windowSize)...)
	copy(data[p:], r1[:2000])
	seg := &scriptedSegment{data: data, off: int64(p) + 1, k: 2, then: func(d []byte) {
		copy(d[p:], r1)
		copy(d[p+len(r1):], r2)
	}}
	keys, rep, end := scanOf(t, seg, len(data))
	if last := strings.Join(keys[len(keys)-2:], " "); last != "r1 r2" || rep.Damaged != 0 {
		t.Errorf("last records %q, end %d, damage %v; want \"r1 r2\" and none", last, end, rep.Damage)
	}
}

// cutSegment is a segment cut to its first to bytes as its at-th read
// begins, as a journal cuts the zeros past its records under a reader.
type cutSegment struct {
	data      []byte
	at, reads int
	to        int
}

func (c *cutSegment) ReadAt(p []byte, off int64) (int, error) {
	if c.reads++; c.reads == c.at {
		c.data = c.data[:c.to]
	}
	if off >= int64(len(c.data)) {
		return 0, io.EOF
	}
	n := copy(p, c.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestScanCutWhileRead: a segment cut while it is read, at each of its
// first eight reads in turn (the scan then reading records, looking for
// the next one, or reading the zeros), reads with no error as the
// segment before the cut or after it reads: cut to the end of its
// records, every record and no damage; cut inside a record longer than
// the window, that record whole, or a damaged tail.
func TestScanCutWhileRead(t *testing.T) {
	held := recordsOf(3 * windowSize)
	big := encodeRecord(nil, "big", bytes.Repeat([]byte("b"), 2*windowSize))
	withBig := append(append([]byte{}, held...), big...)
	summary := func(rep Report) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%d records", rep.Records)
		for _, d := range rep.Damage {
			fmt.Fprintf(&b, ", damaged at %d (tail %v)", d.Offset, d.Tail)
		}
		return b.String()
	}
	for _, tt := range []struct {
		name string
		data []byte
		to   int
	}{
		{name: "to the records' end", data: held, to: len(held)},
		{name: "after a long record", data: withBig, to: len(withBig)},
		{name: "inside a long record", data: withBig, to: len(held) + windowSize},
	} {
		data := append(append([]byte{}, tt.data...), make([]byte, 4*windowSize)...)
		before, _ := scanBytes(data, func(string, []byte) error { return nil })
		after, _ := scanBytes(data[:tt.to], func(string, []byte) error { return nil })
		for at := 1; at <= 8; at++ {
			var rep Report
			seg := &cutSegment{data: append([]byte{}, data...), at: at, to: tt.to}
			_, err := newScanner(&rep).segmentFrom(seg, 0, int64(len(data)), "segment",
				func(string, []byte) error { return nil })
			got := summary(rep)
			if err != nil || got != summary(before) && got != summary(after) {
				t.Errorf("%s, cut at read %d: %v, %s; want no error and %s, or %s",
					tt.name, at, err, got, summary(before), summary(after))
			}
		}
	}
}

// tornRead is a segment whose first read returns a mix of what it held
// before a write in place and after (a read copies page by page while
// the write does), and whose later reads return what it holds after.
type tornRead struct {
	first, after []byte
	reads        int
}

func (c *tornRead) ReadAt(p []byte, off int64) (int, error) {
	if c.reads++; c.reads == 1 {
		return copy(p, c.first[off:]), nil
	}
	return copy(p, c.after[off:]), nil
}

// TestScanReadTornWithinOneRead: one read that saw zeros where a record
// was being written and, further on, the record written after it, reads
// as both records, in order, with no damage: the stretch is read again
// afresh, not from what that read kept.
func TestScanReadTornWithinOneRead(t *testing.T) {
	held := recordsOf(20 << 10)
	p := len(held)
	r1 := encodeRecord(nil, "r1", []byte(`{"r":1}`))
	r2 := encodeRecord(nil, "r2", []byte(`{"r":2}`))
	after := append(append([]byte{}, held...), make([]byte, 2*windowSize)...)
	copy(after[p:], r1)
	copy(after[p+len(r1):], r2)
	first := append([]byte{}, after...)
	clear(first[p : p+len(r1)]) // its page copied before r1 was written
	keys, rep, _ := scanOf(t, &tornRead{first: first, after: after}, len(after))
	if last := strings.Join(keys[len(keys)-2:], " "); last != "r1 r2" || rep.Damaged != 0 {
		t.Errorf("last records %q, damage %v; want \"r1 r2\" and none", last, rep.Damage)
	}
}

// TestLayWhileSealingAndClosing: an Exclusive journal appended to by six
// goroutines at once (synced and not, so that zeros are laid while
// records go in place), sealed by one of them now and then, and closed
// after a number of appends that changes from round to round: nothing
// waits for good, and every record whose append returned is read back,
// with no damage. Zeros were laid in some rounds, or the test says so.
func TestLayWhileSealingAndClosing(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), 3000)
	const rounds, writers, each = 120, 6, 40
	bound := testkit.Bound(10 * time.Second)
	laidIn := 0
	for round := range rounds {
		dir := t.TempDir()
		j := mustOpen(t, dir, Options{Exclusive: true, SegmentBytes: 256 << 10})
		var appended atomic.Int64
		closeAt := int64(round%8) * 20
		reached := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					var err error
					switch {
					case w == 0 && i%10 == 9:
						_, err = j.Seal()
					case w%2 == 0:
						err = j.Append(keyOf("k", i), payload)
					default:
						err = j.AppendSync(keyOf("k", i), payload)
					}
					if err != nil {
						return // closed
					}
					if w != 0 || i%10 != 9 {
						if appended.Add(1) >= closeAt {
							once.Do(func() { close(reached) })
						}
					}
				}
				once.Do(func() { close(reached) })
			})
		}
		<-reached
		j.mu.Lock()
		if j.seg.laid > j.seg.size || j.seg.laying {
			laidIn++
		}
		j.mu.Unlock()
		closed := make(chan error, 1)
		go func() { closed <- j.Close() }()
		select {
		case err := <-closed:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(bound):
			t.Fatalf("round %d: Close waits", round)
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(bound):
			t.Fatalf("round %d: an append waits after Close", round)
		}
		recs, rep := readAll(t, dir)
		if int64(len(recs)) < appended.Load() || rep.Damaged != 0 {
			t.Fatalf("round %d: %d records read of %d appended, damage %v", round, len(recs),
				appended.Load(), rep.Damage)
		}
	}
	if laidIn == 0 {
		t.Errorf("no round had zeros laid when it was closed: the test did not race a laying")
	}
	t.Logf("%d of %d rounds had zeros laid when closed", laidIn, rounds)
}
