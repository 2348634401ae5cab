package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// benchParallelism is the goroutines per GOMAXPROCS of the parallel
// benchmarks: a pool's workers finishing runs at once.
const benchParallelism = 16

// benchPayload is a receipt-sized payload: about 2 KB of JSON.
var benchPayload = []byte(`{"run_id":"0123456789abcdef","program":{"path":"examples/hello.vel","sha256":"` +
	strings.Repeat("ab", 32) + `"},"budget":["io","fs:read:/data"],"confinement":{"level":"full","why":"` +
	strings.Repeat("landlock abi 6, seccomp allow-list, capabilities dropped; ", 30) + `"}}`)

func reportRate(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func benchJournal(b *testing.B, opt Options) *Journal {
	j, err := Open(b.TempDir(), opt)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { j.Close() })
	b.SetBytes(int64(len(benchPayload)))
	b.ResetTimer()
	return j
}

// BenchmarkAppend appends without waiting for the sync: a record then
// survives a crash of the process at once, a power cut within the commit
// interval.
func BenchmarkAppend(b *testing.B) {
	inBothModes(b, func(j *Journal) func(string, []byte) error { return j.Append })
}

// inBothModes appends records one after another with the append of a
// journal that add picks, in sub-benchmarks shared (at the end of the
// file) and exclusive (in place, Options.Exclusive).
func inBothModes(b *testing.B, add func(*Journal) func(string, []byte) error) {
	for _, mode := range []struct {
		name      string
		exclusive bool
	}{{"shared", false}, {"exclusive", true}} {
		b.Run(mode.name, func(b *testing.B) {
			appendOf := add(benchJournal(b, Options{Exclusive: mode.exclusive}))
			for i := 0; b.Loop(); i++ {
				if err := appendOf(fmt.Sprintf("run-%d", i), benchPayload); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b)
		})
	}
}

// BenchmarkAppendSync has many goroutines append and wait for the sync:
// they share fdatasyncs (records/sync says how many).
func BenchmarkAppendSync(b *testing.B) {
	j := benchJournal(b, Options{})
	var n atomic.Int64
	b.SetParallelism(benchParallelism)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := j.AppendSync(fmt.Sprintf("run-%d", n.Add(1)), benchPayload); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportRate(b)
	st := j.Stats()
	b.ReportMetric(float64(st.Appends)/float64(max(st.Syncs, 1)), "records/sync")
}

// BenchmarkAppendSyncSerial is one goroutine that waits for each record's
// sync: one fdatasync a record, at the end of the file (shared) and in
// place over zeros laid ahead (exclusive, Options.Exclusive).
func BenchmarkAppendSyncSerial(b *testing.B) {
	inBothModes(b, func(j *Journal) func(string, []byte) error { return j.AppendSync })
}

// writeFileFsync is the store without a journal: a temporary file
// written, fsynced, and renamed to final.
func writeFileFsync(dir, final string) error {
	tmp, err := os.CreateTemp(dir, ".receipt-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(benchPayload)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	return err
}

// BenchmarkFileFsync stores each record as its own file, one goroutine.
func BenchmarkFileFsync(b *testing.B) {
	dir := b.TempDir()
	b.SetBytes(int64(len(benchPayload)))
	for i := 0; b.Loop(); i++ {
		if err := writeFileFsync(dir, filepath.Join(dir, fmt.Sprintf("run-%d.json", i))); err != nil {
			b.Fatal(err)
		}
	}
	reportRate(b)
}

// BenchmarkFileFsyncParallel stores each record as its own file from as
// many goroutines as BenchmarkAppendSync.
func BenchmarkFileFsyncParallel(b *testing.B) {
	dir := b.TempDir()
	b.SetBytes(int64(len(benchPayload)))
	var n atomic.Int64
	b.SetParallelism(benchParallelism)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := writeFileFsync(dir, filepath.Join(dir, fmt.Sprintf("run-%d.json", n.Add(1)))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportRate(b)
}

// BenchmarkScan reads a journal of 10,000 records, checking each.
func BenchmarkScan(b *testing.B) {
	dir := b.TempDir()
	j, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	const records = 10000
	for i := range records {
		if err := j.Append(fmt.Sprintf("run-%d", i), benchPayload); err != nil {
			b.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(records * int64(len(benchPayload)))
	for b.Loop() {
		rep, err := Scan(dir, func(string, []byte) error { return nil })
		if err != nil || rep.Records != records {
			b.Fatalf("Scan = %+v, %v", rep, err)
		}
	}
	b.ReportMetric(float64(b.N)*records/b.Elapsed().Seconds(), "records/s")
}
