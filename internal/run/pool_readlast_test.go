package run

import (
	"bufio"
	"bytes"
	"runtime"
	"testing"

	"github.com/sabline/sabline/internal/wire"
	"github.com/sabline/sabline/receipt"
)

// TestReadLastReadsIntoOneBuffer: the result lines of a pooled run that
// may make raw system calls (readLast) are read each into the buffer of
// the line before that was not kept. 20 lines of 2.4 MB (the most a line
// may be), none of them a result, each read anew, took 20 times what one
// line read anew takes (12.7 MB each, and three times the processor time
// of its parse): 63 of them, as a program writes them on its worker's
// result pipe, took the door 1.9 s of processor time, four times what
// the worker took to write them. Read so, they take no more than three
// lines read anew. The controls: the last line that is a result is the
// one returned, kept whole while the lines after it are read, whether
// it came last or before lines that are not results, long or short.
func TestReadLastReadsIntoOneBuffer(t *testing.T) {
	result := func(out string) []byte {
		b, err := wire.AppendJobResult(nil, &wire.JobResult{
			Outcome: receipt.Outcome{Status: receipt.StatusOK}, Stdout: []byte(out)})
		if err != nil {
			t.Fatal(err)
		}
		return b // one line, its newline ending it
	}
	junk := append(bytes.Repeat([]byte("x"), wire.MaxJobResultBytes-1), '\n')
	read := func(lines ...[]byte) (last []byte, allocated uint64) {
		done := make(chan struct{})
		close(done)
		w := &poolWorker{workerProc: &workerProc{done: done,
			res: bufio.NewReaderSize(bytes.NewReader(bytes.Join(lines, nil)), 64<<10)}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		last, err := w.readLast()()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("readLast: %v", err)
		}
		return last, after.TotalAlloc - before.TotalAlloc
	}
	var one uint64
	{
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := wire.ReadLine(bufio.NewReaderSize(bytes.NewReader(junk), 64<<10),
			wire.MaxJobResultBytes); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		one = after.TotalAlloc - before.TotalAlloc
	}

	lines := [][]byte{result("first")}
	for range 20 {
		lines = append(lines, junk)
	}
	lines = append(lines, result("last"))
	last, allocated := read(lines...)
	if !bytes.Equal(last, result("last")) {
		t.Errorf("the last result line read: %.80q, want %q", last, result("last"))
	}
	t.Logf("20 lines of %d bytes and two results: %.1f MB allocated, one line read anew %.1f MB",
		len(junk), float64(allocated)/1e6, float64(one)/1e6)
	if allocated > 3*one {
		t.Errorf("20 lines of %d bytes took %d bytes of allocations, more than three lines "+
			"read anew (%d bytes each)", len(junk), allocated, one)
	}

	if last, _ := read(result("kept"), junk, junk, junk); !bytes.Equal(last, result("kept")) {
		t.Errorf("a result before three lines that are not: %.80q returned, want %q", last,
			result("kept"))
	}
	// A line shorter than the result, read into the result's buffer, would
	// overwrite it.
	if last, _ := read(result("kept"), []byte("x\n")); !bytes.Equal(last, result("kept")) {
		t.Errorf("a result before a short line that is not: %.80q returned, want %q", last,
			result("kept"))
	}
	if last, _ := read(junk, result("only")); !bytes.Equal(last, result("only")) {
		t.Errorf("a result after a line that is not: %.80q returned, want %q", last,
			result("only"))
	}
}
