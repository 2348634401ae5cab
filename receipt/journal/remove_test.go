package journal

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRemove: a sealed segment is removed, its file gone and the records
// of the others still read; the newest segment is refused (ErrNewest),
// so that its number is never taken again, and so is a name that is not
// a regular file.
func TestRemove(t *testing.T) {
	dir := t.TempDir()
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, key := range []string{"a", "b"} {
		if err := j.AppendSync(key, []byte("payload "+key)); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Seal(); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	nums, err := Segments(dir)
	if err != nil || len(nums) != 3 {
		t.Fatalf("segments %v (%v), want two sealed and the one appended to", nums, err)
	}
	if j.Stats().SegmentNum != nums[2] {
		t.Fatalf("SegmentNum = %d, want the newest, %d", j.Stats().SegmentNum, nums[2])
	}
	if err := Remove(dir, nums[2]); !errors.Is(err, ErrNewest) {
		t.Fatalf("Remove of the newest: %v, want ErrNewest", err)
	}
	if err := Remove(dir, nums[0]); err != nil {
		t.Fatalf("Remove of a sealed segment: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, segmentName(nums[0]))); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the removed segment's file: %v, want gone", err)
	}
	var keys []string
	if _, err := Scan(dir, func(key string, _ []byte) error {
		keys = append(keys, key)
		return nil
	}); err != nil || !slices.Equal(keys, []string{"b"}) {
		t.Fatalf("read %q (%v) after the removal, want b", keys, err)
	}
	if err := os.Mkdir(filepath.Join(dir, segmentName(0)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir, 0); err == nil {
		t.Fatal("Remove of a directory under a segment's name: no error")
	}
	if err := j.AppendSync("c", []byte("after")); err != nil {
		t.Fatalf("appending after a removal: %v", err)
	}
}
