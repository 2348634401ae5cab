//go:build unix

package journal

import (
	"bytes"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
)

// TestLayAheadFaults: in an Exclusive journal past layFrom, a record
// whose write in place is cut short leaves a fragment that readers pass
// over and the next record follows; zeros whose write fails are not laid,
// and the records after go on at the end of the file: every record whose
// Append returned is read, and nothing else is damage.
func TestLayAheadFaults(t *testing.T) {
	tests := []struct {
		name       string
		fault      func(fd int, p []byte, off int64) (int, error)
		wantB      bool
		wantDamage bool
		wantZeros  bool // past the records once the faults are over
	}{
		{name: "a record cut short in place", fault: func(fd int, p []byte, off int64) (int, error) {
			if bytes.Contains(p, []byte(`"b"`)) {
				return writeAt(fd, p[:len(p)/2], off)
			}
			return writeAt(fd, p, off)
		}, wantDamage: true, wantZeros: true},
		{name: "zeros not written", fault: func(fd int, p []byte, off int64) (int, error) {
			if len(p) >= layFrom && bytes.Count(p, []byte{0}) == len(p) {
				return -1, syscall.ENOSPC
			}
			return writeAt(fd, p, off)
		}, wantB: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() { sysWrite = writeAt }()
			dir := t.TempDir()
			j := mustOpen(t, dir, Options{Exclusive: true})
			defer j.Close()
			n, _ := appendPast(t, j, "k", 2*layFrom)
			sysWrite = tt.fault
			errB := j.Append("b", []byte(`{"b":"`+string(bytes.Repeat([]byte("b"), 3000))+`"}`))
			more, _ := appendPast(t, j, "m", 8*layFrom)
			settled(j) // no zeros being laid through the fault
			sysWrite = writeAt
			if (errB == nil) != tt.wantB {
				t.Errorf("Append(b) = %v, want it to succeed: %v", errB, tt.wantB)
			}
			recs, rep := readAll(t, dir)
			keys := keysOf(recs)
			var want []string
			for i := range n {
				want = append(want, keyOf("k", i))
			}
			if tt.wantB {
				want = append(want, "b")
			}
			for i := range more {
				want = append(want, keyOf("m", i))
			}
			if !slices.Equal(keys, want) {
				t.Errorf("read %d records, want %d: %q around b", len(keys), len(want),
					keys[max(0, n-1):min(len(keys), n+2)])
			}
			if (rep.Damaged == 1 && !rep.Damage[0].Tail) != tt.wantDamage || rep.Damaged > 1 {
				t.Errorf("damage %v, want one stretch before the end: %v", rep.Damage, tt.wantDamage)
			}
			var held int64
			for _, d := range rep.Damage {
				held += d.Length
			}
			held += bytesOf(recs)
			size := fileSize(t, filepath.Join(dir, segmentName(1)))
			if (size > held) != tt.wantZeros {
				t.Errorf("the file holds %d bytes, its records and damage %d: zeros past them %v, want %v",
					size, held, size > held, tt.wantZeros)
			}
		})
	}
}

// TestLayHoldsRecordsBack: while the committer writes zeros past the
// records (held here until the test lets it go), a record that would
// pass where the zeros begin waits for them; the records before it go
// on in place. Once the zeros are written, every record is read back,
// with no damage. A record that did not wait would be written where the
// zeros then land, and lost.
func TestLayHoldsRecordsBack(t *testing.T) {
	defer func() { sysWrite = writeAt }()
	held, release := make(chan int64, 1), make(chan struct{})
	sysWrite = func(fd int, p []byte, off int64) (int, error) {
		if len(p) >= layFrom && bytes.Count(p, []byte{0}) == len(p) {
			select {
			case held <- off:
				<-release // the first laying only
			default:
			}
		}
		return writeAt(fd, p, off)
	}
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{Exclusive: true})
	const records = 200
	var appended atomic.Int64
	done := make(chan error, 1)
	go func() {
		for i := range records {
			if err := j.AppendSync(keyOf("k", i), payloadOf("k", i)); err != nil {
				done <- err
				return
			}
			appended.Add(1)
		}
		done <- nil
	}()
	var from int64
	select {
	case from = <-held:
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatal("no zeros laid")
	}
	// The appender may not pass from while the zeros are held: give it a
	// while to try, then look where its records end.
	deadline := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(deadline) && appended.Load() < records {
		time.Sleep(time.Millisecond)
	}
	j.mu.Lock()
	end := j.seg.size
	j.mu.Unlock()
	close(release)
	if end > from {
		t.Errorf("records reached %d while the zeros from %d were being written", end, from)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testkit.Bound(10 * time.Second)):
		t.Fatalf("the appender waits, %d records appended", appended.Load())
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	recs, rep := readAll(t, dir)
	if len(recs) != records || rep.Damaged != 0 {
		t.Errorf("read %d records of %d, damage %v", len(recs), records, rep.Damage)
	}
}
