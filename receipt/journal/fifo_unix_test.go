//go:build unix

package journal

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestFIFOSegment plants a FIFO under a segment's name: neither Open nor
// Scan blocks on it, and both pass it over.
func TestFIFOSegment(t *testing.T) {
	dir := t.TempDir()
	writeJournal(t, dir, 2)
	if err := syscall.Mkfifo(filepath.Join(dir, segmentName(7)), 0o600); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	j := mustOpen(t, dir, Options{})
	if err := j.Append(keyOf("k", 2), payloadOf("k", 2)); err != nil {
		t.Fatal(err)
	}
	if seg := filepath.Base(j.Stats().Segment); seg != segmentName(1) {
		t.Errorf("appending to %s, want %s", seg, segmentName(1))
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got, rep := readAll(t, dir)
	wantKeys(t, got, seq(0, 3))
	if rep.Segments != 1 {
		t.Errorf("%d segments read, want 1", rep.Segments)
	}
	// A FIFO with the next number, met at open: refused, not waited on.
	if _, err := openSegment(dir, 7, false, false); err == nil {
		t.Errorf("openSegment opened a FIFO")
	}
}
