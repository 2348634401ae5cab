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

	"github.com/sabline/sabline/internal/testkit"
)

// TestRotationRetried: a segment that cannot be followed by a new one (its
// successor's name is taken by a directory) takes the appends past its
// size; once the name is free, the journal moves on when the segment has
// grown by more than 1/64 of SegmentBytes since the rotation failed, at
// Open or at an append, and not before. The 1/64 is set to fall between
// two records' ends and on one.
func TestRotationRetried(t *testing.T) {
	payload := bytes.Repeat([]byte{'p'}, 40)
	key := func(i int) string { return fmt.Sprintf("k%04d", i) }
	r := int64(len(encodeRecord(nil, key(0), payload)))
	tests := []struct {
		name      string
		atOpen    bool  // the rotation fails at Open, else at an append
		per64     int64 // SegmentBytes/64
		wantStays int   // appends after the name is free that stay in segment 1
	}{
		{name: "at an append, between records", per64: 3 * r, wantStays: 3},
		{name: "at an append, on a record's end", per64: 3*r - 1, wantStays: 2},
		{name: "at Open, between records", atOpen: true, per64: 3 * r, wantStays: 4},
		{name: "at Open, on a record's end", atOpen: true, per64: 3*r - 1, wantStays: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := Options{SegmentBytes: 64 * tc.per64}
			full := int((opt.SegmentBytes + r - 1) / r) // the records that fill segment 1
			first := filepath.Join(dir, segmentName(1))
			obstacle := filepath.Join(dir, segmentName(2))
			n := 0
			appendOne := func(j *Journal) string {
				t.Helper()
				if err := j.Append(key(n), payload); err != nil {
					t.Fatalf("Append %d: %v", n, err)
				}
				n++
				return j.Stats().Segment
			}
			var j *Journal
			if tc.atOpen {
				j = mustOpen(t, dir, opt)
				for range full {
					appendOne(j)
				}
				if err := j.Close(); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(obstacle, 0o700); err != nil {
					t.Fatal(err)
				}
				j = mustOpen(t, dir, opt)
			} else {
				j = mustOpen(t, dir, opt)
				if err := os.Mkdir(obstacle, 0o700); err != nil {
					t.Fatal(err)
				}
				for range full + 1 { // the last of them finds segment 1 full
					if seg := appendOne(j); seg != first {
						t.Fatalf("append %d went to %s, want %s", n, seg, first)
					}
				}
			}
			defer j.Close()
			if err := os.Remove(obstacle); err != nil {
				t.Fatal(err)
			}
			stays := 0
			for appendOne(j) == first {
				if stays++; stays > 64 {
					t.Fatalf("still appending to %s after %d appends", first, stays)
				}
			}
			if stays != tc.wantStays {
				t.Errorf("%d appends stayed in segment 1 once its successor's name was free, want %d",
					stays, tc.wantStays)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if got, rep := readAll(t, dir); len(got) != n || rep.Damaged != 0 {
				t.Errorf("%d records read, %d damaged; want the %d appended", len(got), rep.Damaged, n)
			}
		})
	}
}

// TestSharedSegmentReadBack: a journal learns of another's appends to its
// segment by reading the segment's size back once its own bytes cross a
// step of 1/64 of SegmentBytes (and one byte), not at every write: after
// the other filled the segment, it appends until its own bytes first
// cross the step, and goes on in a new segment at the append after.
func TestSharedSegmentReadBack(t *testing.T) {
	payload := bytes.Repeat([]byte{'q'}, 40)
	key := func(who string, i int) string { return fmt.Sprintf("%s%04d", who, i) }
	r := int64(len(encodeRecord(nil, key("a", 0), payload)))
	tests := []struct {
		name      string
		step      int64 // SegmentBytes/64 + 1
		wantStays int   // this journal's appends to the full segment
	}{
		{name: "a step just over three records", step: 3*r + 1, wantStays: 4},
		{name: "a step of three records", step: 3 * r, wantStays: 3},
		{name: "a step of five records and one byte", step: 5*r + 1, wantStays: 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := Options{SegmentBytes: 64 * (tc.step - 1)}
			first := filepath.Join(dir, segmentName(1))
			mine := mustOpen(t, dir, opt)
			defer mine.Close()
			other := mustOpen(t, dir, opt)
			defer other.Close()
			for i := range int((opt.SegmentBytes + r - 1) / r) {
				if err := other.Append(key("b", i), payload); err != nil {
					t.Fatal(err)
				}
			}
			stays := 0
			for {
				if err := mine.Append(key("a", stays), payload); err != nil {
					t.Fatal(err)
				}
				if mine.Stats().Segment != first {
					break
				}
				if stays++; stays > 1000 {
					t.Fatalf("still appending to %s after %d appends", first, stays)
				}
			}
			if stays != tc.wantStays {
				t.Errorf("%d appends went to the segment the other journal filled, want %d",
					stays, tc.wantStays)
			}
		})
	}
}

// TestCommitRecordsStartsACommit: the CommitRecords-th record waiting for
// its fdatasync starts a commit at once, however long CommitInterval is.
func TestCommitRecordsStartsACommit(t *testing.T) {
	tests := []struct {
		name    string
		records int
	}{
		{name: "one record", records: 1},
		{name: "three records", records: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := mustOpen(t, t.TempDir(), Options{CommitInterval: time.Hour, CommitRecords: tc.records})
			defer j.Close()
			for i := range tc.records {
				if err := j.Append(keyOf("c", i), payloadOf("c", i)); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(testkit.Bound(5 * time.Second))
			for j.Stats().Syncs == 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if n := j.Stats().Syncs; n != 1 {
				t.Errorf("%d syncs after %d appends with CommitRecords %d, want 1",
					n, tc.records, tc.records)
			}
		})
	}
}

// TestOpenFirstSegmentTaken: a directory whose first segment's name is
// taken by a directory, and that holds no segment, is an error at Open
// that names the directory.
func TestOpenFirstSegmentTaken(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, segmentName(1)), 0o700); err != nil {
		t.Fatal(err)
	}
	j, err := Open(dir, Options{})
	if err == nil {
		j.Close()
		t.Fatalf("Open(%s) with %s a directory succeeded", dir, segmentName(1))
	}
	if !strings.Contains(err.Error(), dir) {
		t.Errorf("Open: %v, want an error naming %s", err, dir)
	}
}

// TestSyncOfNothingNew: a Sync with no record appended since the last
// commit makes no fdatasync of its own.
func TestSyncOfNothingNew(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{CommitInterval: time.Hour})
	defer j.Close()
	if err := j.Append("a", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := j.Stats().Syncs; n != 1 {
		t.Fatalf("%d syncs after an append and a Sync, want 1", n)
	}
	for range 2 {
		if err := j.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	// The committer answers each Sync after it returned: give it the time.
	deadline := time.Now().Add(200 * time.Millisecond)
	for j.Stats().Syncs == 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := j.Stats().Syncs; n != 1 {
		t.Errorf("%d syncs after two more Syncs of nothing new, want 1", n)
	}
}

// TestRefusedKeyInTheError: the error of a refused key quotes a key of up
// to 64 bytes whole, and a longer one cut to 64 bytes and "...".
func TestRefusedKeyInTheError(t *testing.T) {
	tab63 := strings.Repeat("k", 63) + "\t"
	tests := []struct {
		name    string
		key     string
		wantKey string
	}{
		{name: "64 bytes", key: tab63, wantKey: fmt.Sprintf("%q", tab63)},
		{name: "65 bytes", key: tab63 + "x", wantKey: fmt.Sprintf("%q", tab63+"...")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := AppendRecord(nil, tc.key, []byte("p"))
			if !errors.Is(err, ErrKey) {
				t.Fatalf("AppendRecord with key %q: %v, want ErrKey", tc.key, err)
			}
			if !strings.HasSuffix(err.Error(), ": "+tc.wantKey) {
				t.Errorf("error %q, want it to end with the key as %s", err, tc.wantKey)
			}
		})
	}
}

// TestDamageListBounded: a report counts every damaged stretch and lists
// the first MaxReportedDamage of them, no more.
func TestDamageListBounded(t *testing.T) {
	tests := []struct {
		name       string
		stretches  int
		wantListed int
	}{
		{name: "as many as are listed", stretches: MaxReportedDamage, wantListed: MaxReportedDamage},
		{name: "one more", stretches: MaxReportedDamage + 1, wantListed: MaxReportedDamage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var data []byte
			for i := range tc.stretches {
				data = encodeRecord(data, keyOf("d", i), []byte("{}"))
				data = append(data, "not a record, but bytes between two"...)
			}
			data = encodeRecord(data, "last", []byte("{}"))
			rep, err := scanBytes(data, func(string, []byte) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if rep.Records != tc.stretches+1 || rep.Damaged != tc.stretches ||
				len(rep.Damage) != tc.wantListed {
				t.Errorf("%d records, %d damaged, %d listed; want %d, %d, %d", rep.Records, rep.Damaged,
					len(rep.Damage), tc.stretches+1, tc.stretches, tc.wantListed)
			}
		})
	}
}
