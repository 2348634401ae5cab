package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runName is the name an index test draws from a key: what lies between
// "run-" and ".json".
func runName(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "run-")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, ".json")
}

// lastByScan is what Find must return: the last record of name in dir,
// by a whole scan.
func lastByScan(t *testing.T, dir string, since time.Time, name func(string) (string, bool),
	want string) (string, []byte, bool) {
	t.Helper()
	var key string
	var payload []byte
	found := false
	if _, err := ScanSince(dir, since, func(k string, p []byte) error {
		if n, ok := name(k); ok && n == want {
			key, payload, found = k, append([]byte(nil), p...), true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return key, payload, found
}

// checkFind holds x.Find of each name to lastByScan.
func checkFind(t *testing.T, x *Index, dir string, since time.Time, names ...string) {
	t.Helper()
	for _, n := range names {
		key, payload, err := x.Find(dir, since, n)
		wantKey, wantPayload, found := lastByScan(t, dir, since, x.name, n)
		if !found {
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("Find(%q) = %q, %v; want ErrNotFound", n, key, err)
			}
			continue
		}
		if err != nil || key != wantKey || string(payload) != string(wantPayload) {
			t.Errorf("Find(%q) = %q %q, %v; want %q %q", n, key, payload, err, wantKey, wantPayload)
		}
	}
}

// appendRuns appends a record for each name, its payload "name@round".
func appendRuns(t *testing.T, j *Journal, round string, names ...string) (bytes int64) {
	t.Helper()
	for _, n := range names {
		key, payload := "run-"+n+".json", []byte(n+"@"+round)
		if err := j.AppendSync(key, payload); err != nil {
			t.Fatal(err)
		}
		bytes += int64(headerSize + len(key) + len(payload))
	}
	return bytes
}

// TestIndexFind: Find returns what a whole scan finds (the last record of
// a name, across segments, records of other keys passed over), and reads
// each byte of the journal once: a lookup after the first reads only what
// was appended since, a miss nothing, and a hit the one record it
// answers with, never the journal again (TestIndexDigestsCollide's
// fallback is the control).
func TestIndexFind(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 80})
	defer func() { j.Close() }()
	written := appendRuns(t, j, "1", "a", "b", "c", "d", "e", "f")
	if err := j.AppendSync("other-a.json", []byte("not a run")); err != nil {
		t.Fatal(err)
	}
	written += int64(headerSize + len("other-a.json") + len("not a run"))
	written += appendRuns(t, j, "2", "b", "e")
	if nums, _ := segments(dir); len(nums) < 3 {
		t.Fatalf("%d segments, want several", len(nums))
	}
	x := NewIndex(runName, 1<<10)
	checkFind(t, x, dir, time.Time{}, "a", "b", "c", "d", "e", "f", "g", "other-a")
	if x.read != written || x.taken != written {
		t.Errorf("the first lookups indexed %d bytes and took %d from the files, "+
			"want the journal's %d", x.read, x.taken, written)
	}
	if x.scans != 0 {
		t.Errorf("the lookups scanned the journal whole %d times, want none: "+
			"each reads its own record", x.scans)
	}
	if key, payload, err := x.Find(dir, time.Time{}, "b"); err != nil || key != "run-b.json" ||
		string(payload) != "b@2" {
		t.Errorf("Find(b) = %q %q, %v; want its second record, b@2", key, payload, err)
	}

	// a miss reads nothing; new records, only themselves
	before, taken := x.read, x.taken
	if _, _, err := x.Find(dir, time.Time{}, "never"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(never) = %v, want ErrNotFound", err)
	}
	if x.read != before {
		t.Errorf("a miss read %d bytes, want 0", x.read-before)
	}
	// appended to the newest segment, not a new one: no bound to cross
	j.Close()
	j = mustOpen(t, dir, Options{})
	nums, _ := segments(dir)
	added := appendRuns(t, j, "3", "g")
	if now, _ := segments(dir); len(now) != len(nums) {
		t.Fatalf("the record went to a new segment: want it appended to one read before")
	}
	checkFind(t, x, dir, time.Time{}, "a", "g", "c")
	if x.read-before != added || x.taken-taken != added {
		t.Errorf("lookups after an append indexed %d bytes and took %d, want the %d appended",
			x.read-before, x.taken-taken, added)
	}
	if x.scans != 0 {
		t.Errorf("the lookups scanned the journal whole %d times, want none", x.scans)
	}
}

// TestIndexTakesALargeRecord: a record past the scanner's window, read
// by a read of its own, is counted among the bytes the index took from
// the file, as the small records around it are (the control): each byte
// of the journal taken once.
func TestIndexTakesALargeRecord(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	defer j.Close()
	written := appendRuns(t, j, "1", "a")
	key, payload := "run-large.json", bytes.Repeat([]byte("x"), 2*windowSize)
	if err := j.AppendSync(key, payload); err != nil {
		t.Fatal(err)
	}
	written += int64(headerSize + len(key) + len(payload))
	written += appendRuns(t, j, "1", "b")
	x := NewIndex(runName, 1<<10)
	checkFind(t, x, dir, time.Time{}, "a", "large", "b")
	if x.read != written || x.taken != written {
		t.Errorf("the lookups indexed %d bytes and took %d from the files, want the journal's %d",
			x.read, x.taken, written)
	}
}

// TestIndexLastInItsSegment: of two records of a name in one segment (a
// receipt reserved, then finished), Find returns the later, whether the
// index read both at once or the later appended since its last read; a
// name of one record in the segment is the control.
func TestIndexLastInItsSegment(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	defer j.Close()
	appendRuns(t, j, "1", "a", "b")
	appendRuns(t, j, "2", "a")
	x := NewIndex(runName, 1<<10)
	for _, want := range []struct{ name, payload string }{{"a", "a@2"}, {"b", "b@1"}} {
		if _, payload, err := x.Find(dir, time.Time{}, want.name); err != nil ||
			string(payload) != want.payload {
			t.Errorf("Find(%s) = %q, %v; want %q", want.name, payload, err, want.payload)
		}
	}
	appendRuns(t, j, "3", "b")
	if _, payload, err := x.Find(dir, time.Time{}, "b"); err != nil || string(payload) != "b@3" {
		t.Errorf("Find(b) after its second record = %q, %v; want b@3", payload, err)
	}
	if nums, _ := segments(dir); len(nums) != 1 {
		t.Fatalf("%d segments, want the records in one", len(nums))
	}
	checkFind(t, x, dir, time.Time{}, "a", "b")
}

// TestIndexSince: a segment last written before since is passed over, as
// ScanSince passes it over; written after, it is read.
func TestIndexSince(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	appendRuns(t, j, "1", "a")
	j.Close()
	seg := filepath.Join(dir, segmentName(1))
	at := time.Now().Add(-time.Hour)
	x := NewIndex(runName, 1<<10)
	for _, tt := range []struct {
		name      string
		mtime     time.Time
		wantFound bool
	}{
		{name: "written after since", mtime: at.Add(time.Second), wantFound: true},
		{name: "written before since", mtime: at.Add(-time.Second)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.Chtimes(seg, tt.mtime, tt.mtime); err != nil {
				t.Fatal(err)
			}
			_, _, err := x.Find(dir, at, "a")
			if found := err == nil; found != tt.wantFound {
				t.Errorf("Find: %v, want found %v", err, tt.wantFound)
			}
			checkFind(t, x, dir, at, "a")
		})
	}
}

// TestSinceAfterTheClockSteppedBack: a segment after one that is read is
// read whatever its modification time, by Find and by ScanSince alike: a
// name's first record in segment 1, written after since, and its last in
// segment 2, stamped before since as a wall clock stepped back between
// the two stamps it; the last is found, not the first. The control: the
// same two segments, the first stamped before since as well, are both
// passed over, and nothing is found.
func TestSinceAfterTheClockSteppedBack(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	appendRuns(t, j, "1", "a")
	if _, err := j.Seal(); err != nil {
		t.Fatal(err)
	}
	appendRuns(t, j, "2", "a")
	j.Close()
	since := time.Now().Add(-time.Minute)
	stepped := since.Add(-time.Hour)
	for _, tt := range []struct {
		name     string
		first    time.Time // segment 1's modification time
		want     string    // the payload found, "" for none
		segsRead int
	}{
		{name: "the first written after since", first: since.Add(time.Second), want: "a@2",
			segsRead: 2},
		{name: "both stamped before since (control)", first: stepped.Add(-time.Second)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for n, mtime := range map[int]time.Time{1: tt.first, 2: stepped} {
				if err := os.Chtimes(filepath.Join(dir, segmentName(n)), mtime, mtime); err != nil {
					t.Fatal(err)
				}
			}
			x := NewIndex(runName, 1<<10)
			_, payload, err := x.Find(dir, since, "a")
			if got := string(payload); got != tt.want || (tt.want == "") != errors.Is(err, ErrNotFound) {
				t.Errorf("Find: %q, %v; want %q", got, err, tt.want)
			}
			var scanned string
			rep, err := ScanSince(dir, since, func(k string, p []byte) error {
				scanned = string(p)
				return nil
			})
			if err != nil || scanned != tt.want || rep.Segments != tt.segsRead {
				t.Errorf("ScanSince: last %q of %d segments (%v); want %q of %d", scanned,
					rep.Segments, err, tt.want, tt.segsRead)
			}
		})
	}
}

// TestIndexTornTail: a record being written (its first bytes only) is not
// found, and is found once whole, its first bytes read again.
func TestIndexTornTail(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{})
	appendRuns(t, j, "1", "a")
	j.Close()
	rec := encodeRecord(nil, "run-b.json", []byte("b@1"))
	f, err := os.OpenFile(filepath.Join(dir, segmentName(1)), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x := NewIndex(runName, 1<<10)
	for i, part := range [][]byte{rec[:7], rec[7 : len(rec)-1], rec[len(rec)-1:]} {
		if _, err := f.Write(part); err != nil {
			t.Fatal(err)
		}
		_, payload, err := x.Find(dir, time.Time{}, "b")
		if whole := i == 2; (err == nil) != whole || (whole && string(payload) != "b@1") {
			t.Errorf("after part %d of the record: Find(b) = %q, %v; want found %v",
				i+1, payload, err, whole)
		}
		checkFind(t, x, dir, time.Time{}, "a", "b")
	}
}

// TestIndexSegmentChanged: a segment removed is forgotten; one replaced
// by another file under its name, or overwritten in place, is read as it
// is now.
func TestIndexSegmentChanged(t *testing.T) {
	for _, tt := range []struct {
		name     string
		change   func(t *testing.T, seg string)
		want     map[string]string // name: payload ("" not found)
		wantHeld int               // names the index holds after
		// torn, when set, ends the segment with the first bytes of a
		// record before the index reads it: it stops short of the end.
		torn bool
	}{
		{
			name:   "removed",
			change: func(t *testing.T, seg string) { os.Remove(seg) },
			want:   map[string]string{"a": "", "b": ""},
		},
		{
			name: "replaced",
			change: func(t *testing.T, seg string) {
				os.Remove(seg)
				os.WriteFile(seg, encodeRecord(nil, "run-c.json", []byte("c@1")), 0o600)
			},
			want:     map[string]string{"a": "", "b": "", "c": "c@1"},
			wantHeld: 1,
		},
		{
			name: "overwritten in place",
			change: func(t *testing.T, seg string) {
				data, err := os.ReadFile(seg)
				if err != nil {
					t.Fatal(err)
				}
				// run-b's record becomes run-x's, of the same length
				at := strings.Index(string(data), "run-b.json") - headerSize
				copy(data[at:], encodeRecord(nil, "run-x.json", []byte("x@1")))
				if err := os.WriteFile(seg, data, 0o600); err != nil {
					t.Fatal(err)
				}
				later := time.Now().Add(time.Second) // a clock's tick apart from the last read
				if err := os.Chtimes(seg, later, later); err != nil {
					t.Fatal(err)
				}
			},
			want:     map[string]string{"a": "a@1", "b": "", "x": "x@1"},
			wantHeld: 2,
		},
		{
			// The control of the one below: a segment read to its end
			// and cut is read again as it is now.
			name:     "cut short of what was read",
			change:   cutAfterA,
			want:     map[string]string{"a": "a@1", "b": ""},
			wantHeld: 1,
		},
		{
			name:     "cut short of what was read, where the read stopped short",
			torn:     true,
			change:   cutAfterA,
			want:     map[string]string{"a": "a@1", "b": ""},
			wantHeld: 1,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			j := mustOpen(t, dir, Options{})
			appendRuns(t, j, "1", "a", "b")
			j.Close()
			if tt.torn {
				f, err := os.OpenFile(filepath.Join(dir, segmentName(1)), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, err = f.Write(encodeRecord(nil, "run-c.json", []byte("c@1"))[:7])
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			x := NewIndex(runName, 1<<10)
			checkFind(t, x, dir, time.Time{}, "a", "b")
			e := x.segs[filepath.Join(dir, segmentName(1))]
			if e == nil || tt.torn != (e.end < e.file.Size()) {
				t.Fatalf("the index stopped short of the segment's end: %v, want %v",
					e != nil && e.end < e.file.Size(), tt.torn)
			}
			tt.change(t, filepath.Join(dir, segmentName(1)))
			for name, want := range tt.want {
				_, payload, err := x.Find(dir, time.Time{}, name)
				if string(payload) != want || (want == "") != errors.Is(err, ErrNotFound) {
					t.Errorf("Find(%q) = %q, %v; want %q", name, payload, err, want)
				}
			}
			if x.entries != tt.wantHeld || len(x.segs) != min(tt.wantHeld, 1) {
				t.Errorf("the index holds %d names of %d segments, want %d", x.entries, len(x.segs),
					tt.wantHeld)
			}
		})
	}
}

// TestIndexBound: past its bound of names, the index forgets the
// segments used least recently, and finds what it forgot by reading them
// again.
func TestIndexBound(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 100})
	defer j.Close()
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprint("n", i))
	}
	appendRuns(t, j, "1", names...)
	const bound = 4
	x := NewIndex(runName, bound)
	for range 2 {
		for _, n := range names {
			checkFind(t, x, dir, time.Time{}, n)
			if x.entries > bound {
				t.Fatalf("after Find(%s) the index holds %d names, past its bound %d", n, x.entries, bound)
			}
		}
	}
	// the control: with room for every name, nothing is read twice
	y := NewIndex(runName, 1<<10)
	checkFind(t, y, dir, time.Time{}, names...)
	first := y.read
	checkFind(t, y, dir, time.Time{}, names...)
	if y.entries != len(names) || y.read != first {
		t.Errorf("with room: %d names held, %d bytes read again; want %d, 0", y.entries,
			y.read-first, len(names))
	}
}

// TestIndexDigestsCollide: names whose digests are the same are told
// apart by the record's own key: with every name of one digest, Find
// still returns each name's last record, by a whole scan where the
// record the index holds is another name's.
func TestIndexDigestsCollide(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 80})
	defer j.Close()
	appendRuns(t, j, "1", "a", "b", "c")
	appendRuns(t, j, "2", "a")
	x := NewIndex(runName, 1<<10)
	x.digest = func(string) uint64 { return 7 }
	checkFind(t, x, dir, time.Time{}, "a", "b", "c", "d")
	if _, payload, err := x.Find(dir, time.Time{}, "b"); err != nil || string(payload) != "b@1" {
		t.Errorf("Find(b) = %q, %v; want b@1", payload, err)
	}
	if x.scans == 0 {
		t.Errorf("names of one digest found without a whole scan")
	}
}

// cutAfterA cuts the segment seg of run-a's record then run-b's in run-b's.
func cutAfterA(t *testing.T, seg string) {
	a := int64(len(encodeRecord(nil, "run-a.json", []byte("a@1"))))
	if err := os.Truncate(seg, a+5); err != nil {
		t.Fatal(err)
	}
}

// FuzzIndex: over any bytes in a segment, given in two parts with a
// lookup between them, Find returns what a whole scan returns.
func FuzzIndex(f *testing.F) {
	a, b := encodeRecord(nil, "run-a.json", []byte("a@1")), encodeRecord(nil, "run-b.json", []byte("b"))
	f.Add(append(append([]byte{}, a...), b...), 10)
	f.Add(append(append([]byte{}, a...), a...), len(a))
	f.Add(append(append([]byte("garbage"), a...), 0xFF, 'S', 'b'), 3)
	f.Add(append(append([]byte{}, b[:9]...), a...), 9)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		if len(data) > 1<<16 {
			return
		}
		split = min(max(split, 0), len(data))
		dir := t.TempDir()
		seg := filepath.Join(dir, segmentName(1))
		if err := os.WriteFile(seg, data[:split], 0o600); err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{"a": true, "b": true}
		if _, err := scanBytes(data, func(k string, _ []byte) error {
			names[k] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		x := NewIndex(func(k string) (string, bool) { return k, true }, 1<<10)
		x.Find(dir, time.Time{}, "a")
		f, err := os.OpenFile(seg, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data[split:])
		f.Close()
		for n := range names {
			checkFind(t, x, dir, time.Time{}, n)
		}
	})
}
