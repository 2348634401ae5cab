package journal

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
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

// TestSealWaitingWhileASyncFails: a Seal that waits for zeros being laid
// while a commit fails refuses, as a Seal after the failure does: the
// journal takes no more records, and no segment is begun. The control:
// the record that waited for the failed sync is told so.
func TestSealWaitingWhileASyncFails(t *testing.T) {
	broken := errors.New("device error")
	var armed atomic.Bool
	inSync, fail := make(chan struct{}), make(chan struct{})
	syncFile = func(f *os.File) error {
		if !armed.CompareAndSwap(true, false) {
			return datasync(f)
		}
		close(inSync)
		<-fail
		return broken
	}
	defer func() { syncFile = datasync }()
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{CommitInterval: time.Hour, CommitRecords: 1, Exclusive: true})
	defer j.Close()
	for i := 0; j.Stats().Held < layFrom; i++ { // past layFrom: a waiting record asks for zeros
		if err := j.AppendUnsynced(keyOf("r", i), payloadOf("r", i)); err != nil {
			t.Fatal(err)
		}
	}
	armed.Store(true)
	// CommitRecords 1: the committer commits this record at once, and its
	// sync waits for fail.
	if err := j.Append("soon", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	<-inSync
	synced := make(chan error, 1)
	go func() { synced <- j.AppendSync("now", []byte("{}")) }()
	waitUntil(t, "the zeros asked for", func() bool {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.seg.laying
	})
	sealed := make(chan error, 1)
	go func() {
		_, err := j.Seal()
		sealed <- err
	}()
	waitUntil(t, "Seal waiting for the zeros", func() bool {
		return goroutineIn("(*Journal).settle", "(*Journal).Seal")
	})
	close(fail)
	if err := <-synced; !errors.Is(err, broken) {
		t.Errorf("AppendSync = %v, want the failed sync", err)
	}
	if err := <-sealed; !errors.Is(err, broken) {
		t.Errorf("Seal, waiting while the sync failed = %v, want the failure", err)
	}
	if nums, err := segments(dir); err != nil || len(nums) != 1 {
		t.Errorf("segments %v, %v; want the first alone", nums, err)
	}
}

// waitUntil waits, within a bound, until cond holds, or fails the test
// naming what it waited for.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testkit.Bound(10 * time.Second))
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within the bound", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// goroutineIn reports whether a goroutine of this process is in each of
// fns at once (its stack names them all).
func goroutineIn(fns ...string) bool {
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, g := range strings.Split(stacks, "\n\n") {
		in := true
		for _, f := range fns {
			in = in && strings.Contains(g, f)
		}
		if in {
			return true
		}
	}
	return false
}
