package journal

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestIndexLooksOverOneJournal: a lookup in one journal looks over that
// journal's segments for those removed, not every segment the index
// knows in other journals. A receipts directory keeps a journal for each
// process that ever held it (each sabline mcp session, each restart),
// and a lookup of a run reads every one: before, each of those reads
// looked over the segments of all of them, and a lookup among 3,000
// journals took 5 s of a server's processor. The control: a segment
// removed from the journal looked in is still forgotten, and a lookup
// there still finds what it holds, and is looked over no more.
func TestIndexLooksOverOneJournal(t *testing.T) {
	root := t.TempDir()
	const journals = 50
	var dirs []string
	for i := range journals {
		dir := filepath.Join(root, "proc-"+string(rune('a'+i/26))+string(rune('a'+i%26)))
		j := mustOpen(t, dir, Options{SegmentBytes: 1})
		appendRuns(t, j, "1", "x", "y")
		j.Close()
		dirs = append(dirs, dir)
	}
	x := NewIndex(runName, 1<<10)
	for _, dir := range dirs {
		if _, _, err := x.Find(dir, time.Time{}, "x"); err != nil {
			t.Fatal(err)
		}
	}
	nums, err := segments(dirs[0])
	if err != nil || len(nums) < 2 {
		t.Fatalf("segments %v, %v: want two or more in a journal", nums, err)
	}
	x.looked = 0
	if _, _, err := x.Find(dirs[0], time.Time{}, "y"); err != nil {
		t.Fatal(err)
	}
	if x.looked > len(nums) {
		t.Errorf("a lookup in one journal of %d segments looked over %d segments for those "+
			"removed: the other journals' too", len(nums), x.looked)
	}
	// The control: the segment holding x removed, x is no longer found.
	if err := os.Remove(filepath.Join(dirs[0], segmentName(nums[0]))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := x.Find(dirs[0], time.Time{}, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(x) after its segment was removed = %v, want ErrNotFound", err)
	}
	if _, ok := x.segs[filepath.Join(dirs[0], segmentName(nums[0]))]; ok {
		t.Error("the removed segment is still indexed")
	}
	// Once forgotten, it is looked over no more: a journal whose
	// retention removes a segment a day would otherwise be looked over
	// for each it ever removed, at every lookup, for as long as the
	// server lives.
	x.looked = 0
	if _, _, err := x.Find(dirs[0], time.Time{}, "y"); err != nil {
		t.Fatal(err)
	}
	if x.looked > len(nums)-1 {
		t.Errorf("a lookup in a journal of %d segments, one removed and forgotten, looked over %d "+
			"segments for those removed", len(nums)-1, x.looked)
	}
	if _, _, err := x.Find(dirs[1], time.Time{}, "x"); err != nil {
		t.Errorf("Find(x) in another journal: %v", err)
	}
}
