package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOptionDefaults: a field of Options that is zero or negative takes
// its default, and a positive one is kept.
func TestOptionDefaults(t *testing.T) {
	defaults := Options{SegmentBytes: DefaultSegmentBytes, CommitInterval: DefaultCommitInterval,
		CommitRecords: DefaultCommitRecords}
	set := Options{SegmentBytes: 1, CommitInterval: time.Nanosecond, CommitRecords: 1}
	tests := []struct {
		name string
		opt  Options
		want Options
	}{
		{name: "zero", opt: Options{}, want: defaults},
		{name: "negative", opt: Options{SegmentBytes: -1, CommitInterval: -1, CommitRecords: -1},
			want: defaults},
		{name: "the least positive", opt: set, want: set},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := mustOpen(t, t.TempDir(), tt.opt)
			defer j.Close()
			if j.opt != tt.want {
				t.Errorf("Open with %+v: options %+v, want %+v", tt.opt, j.opt, tt.want)
			}
		})
	}
}

// TestRetiredSegmentSyncFails: a commit that cannot sync a segment it
// retired fails, though the segment appends now go to syncs: the records
// in the retired one may not be on the device. The failure names the
// retired segment, and the journal takes no more records.
func TestRetiredSegmentSyncFails(t *testing.T) {
	broken := errors.New("device error")
	syncFile = func(f *os.File) error {
		if filepath.Base(f.Name()) == segmentName(1) {
			return broken
		}
		return datasync(f)
	}
	defer func() { syncFile = datasync }()
	j := mustOpen(t, t.TempDir(), Options{CommitInterval: time.Hour})
	if err := j.Append("a", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if sealed, err := j.Seal(); err != nil || sealed != 1 {
		t.Fatalf("Seal = %d, %v; want segment 1 sealed", sealed, err)
	}
	if err := j.Sync(); !errors.Is(err, broken) || !strings.Contains(err.Error(), segmentName(1)) {
		t.Errorf("Sync = %v, want the failure of %s", err, segmentName(1))
	}
	if err := j.Append("b", []byte("{}")); !errors.Is(err, broken) {
		t.Errorf("Append after a failed sync = %v, want the failure", err)
	}
	if err := j.Close(); !errors.Is(err, broken) {
		t.Errorf("Close = %v, want the failure", err)
	}
}

// TestCloseReportsAFailedClose: when the close of the segment fails (its
// file closed under the journal here), Close says so, though every record
// was synced before.
func TestCloseReportsAFailedClose(t *testing.T) {
	j := mustOpen(t, t.TempDir(), Options{})
	if err := j.AppendSync("a", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	j.mu.Lock()
	f := j.seg.f
	j.mu.Unlock()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Close = %v, want the failure of closing the segment", err)
	}
}
