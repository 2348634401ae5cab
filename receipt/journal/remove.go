package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// ErrNewest is the error of Remove asked for the newest segment of a
// journal: it is never removed, so that a segment's number is never
// taken again (Open goes on after the newest segment there is, and a
// shipper keys what it shipped by the number).
var ErrNewest = errors.New("journal: the newest segment is never removed")

// Remove removes segment num of the journal in dir, and syncs the
// directory so that the removal survives a power cut. What the segment
// held is gone: the caller removes only a segment whose records are kept
// elsewhere (shipped) or past what it was told to keep, and never one a
// Journal may still append to (after Seal, the segments before the one
// returned are past that). The newest segment in dir is refused
// (ErrNewest), and so is a name that is not a regular file. On Windows a
// segment a Journal still has open (sealed, not yet closed by its next
// commit) cannot be removed: the error says so, and a later call can.
func Remove(dir string, num int) error {
	nums, err := segments(dir)
	if err != nil {
		return fmt.Errorf("journal remove: %w", err)
	}
	if len(nums) > 0 && num >= nums[len(nums)-1] {
		return fmt.Errorf("journal remove %s: %w", segmentName(num), ErrNewest)
	}
	path := filepath.Join(dir, segmentName(num))
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("journal remove: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("journal remove: %s is not a regular file (mode %s)", path, fi.Mode().Type())
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("journal remove: %w", err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("journal remove: sync %s: %w", dir, err)
	}
	return nil
}

// SegmentInfo is what the file system says of one segment.
type SegmentInfo struct {
	Num  int
	Size int64
	// Modified is when it was last written: its newest record is no
	// newer.
	Modified time.Time
}

// SegmentInfos lists the segments of the journal in dir, in order, with
// their sizes and when each was last written.
func SegmentInfos(dir string) ([]SegmentInfo, error) {
	nums, err := segments(dir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	out := make([]SegmentInfo, 0, len(nums))
	for _, n := range nums {
		fi, err := os.Lstat(filepath.Join(dir, segmentName(n)))
		if errors.Is(err, os.ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		out = append(out, SegmentInfo{Num: n, Size: fi.Size(), Modified: fi.ModTime()})
	}
	return out, nil
}
