package worker

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// grown is how much a measure must grow, at least, for 64 MiB written:
// the kernel's counters are per processor, and may lag by some pages.
const grown = 60 << 20

// touch writes a byte in each page of b, so that the kernel backs it.
func touch(b []byte) {
	for i := 0; i < len(b); i += os.Getpagesize() {
		b[i] = 1
	}
}

// TestMemoryGaugeCountsMappings: the Linux watch counts 64 MiB the Go
// runtime allocated, once written, and as much mapped outside the
// runtime, private, shared or of a memfd, and no longer once unmapped;
// the runtime's own measure (runtimeHeld, what the watch read before)
// does not see the mappings.
func TestMemoryGaugeCountsMappings(t *testing.T) {
	gauge := statusGauge(statusPath, io.Discard)
	debug.FreeOSMemory() // what an earlier test left is given back, not reused
	before := gauge()
	heap := make([]byte, 64<<20)
	touch(heap)
	if after := gauge(); after < before+grown {
		t.Errorf("64 MiB of the Go heap written: the gauge went %d → %d bytes, want +%d",
			before, after, grown)
	}

	memfd, err := unix.MemfdCreate("sabline-test", unix.MFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(memfd)
	if err := unix.Ftruncate(memfd, 64<<20); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		fd    int
		flags int
	}{
		{"private", -1, unix.MAP_PRIVATE | unix.MAP_ANONYMOUS},
		{"shared", -1, unix.MAP_SHARED | unix.MAP_ANONYMOUS},
		{"of a memfd", memfd, unix.MAP_SHARED},
	} {
		t.Run(tt.name, func(t *testing.T) {
			heldBefore, before := runtimeHeld(), gauge()
			m, err := unix.Mmap(tt.fd, 0, 64<<20, unix.PROT_READ|unix.PROT_WRITE, tt.flags)
			if err != nil {
				t.Fatal(err)
			}
			touch(m)
			mapped, heldMapped := gauge(), runtimeHeld()
			if mapped < before+grown {
				t.Errorf("64 MiB mapped and written: the gauge went %d → %d bytes, want +%d",
					before, mapped, grown)
			}
			if heldMapped > heldBefore+(16<<20) {
				t.Errorf("the Go runtime's measure went %d → %d bytes with a mapping it did not "+
					"make: it is not the control this test takes it for", heldBefore, heldMapped)
			}
			if err := unix.Munmap(m); err != nil {
				t.Fatal(err)
			}
			if unmapped := gauge(); unmapped > mapped-grown {
				t.Errorf("64 MiB unmapped: the gauge went %d → %d bytes, want −%d",
					mapped, unmapped, grown)
			}
		})
	}
	goruntime.KeepAlive(heap)
}

// TestMemoryGaugeStandsIn: where the status file cannot be opened or
// read when the gauge is made, or what it holds is not a status file's,
// the worker says so, and the gauge reads what the Go runtime holds
// instead, and sees the runtime's memory grow.
func TestMemoryGaugeStandsIn(t *testing.T) {
	garbled := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(garbled, []byte("RssAnon: a lot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, path string }{
		{"no such file", filepath.Join(t.TempDir(), "absent")},
		{"a directory: its read fails", t.TempDir()},
		{"not a status file's lines", garbled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var warned bytes.Buffer
			gauge := statusGauge(tt.path, &warned)
			if !strings.Contains(warned.String(), "the memory watch reads what the Go runtime holds") {
				t.Errorf("the worker said %q, want that its watch reads the Go runtime", warned.String())
			}
			debug.FreeOSMemory()
			before := gauge()
			b := make([]byte, 64<<20)
			if after := gauge(); before == 0 || after < before+grown {
				t.Errorf("64 MiB allocated: the gauge went %d → %d bytes, want +%d from more than 0",
					before, after, grown)
			}
			goruntime.KeepAlive(b)
		})
	}
}

// BenchmarkMemoryGauge: one read of each measure the watch could take
// every 5 ms, or a pool worker after each job: the status file's (the
// Linux watch's), statm's (a Linux pool worker's, heldGauge),
// runtime/metrics' (both elsewhere, as memory_other.go reads it) and
// ReadMemStats' (the stand-in, which stops the world).
func BenchmarkMemoryGauge(b *testing.B) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	for _, bb := range []struct {
		name  string
		gauge func() uint64
	}{
		{"status", statusGauge(statusPath, io.Discard)},
		{"statm", heldGauge()},
		{"runtime-metrics", func() uint64 {
			metrics.Read(samples)
			return samples[0].Value.Uint64() - samples[1].Value.Uint64()
		}},
		{"read-mem-stats", runtimeHeld},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				if bb.gauge() == 0 {
					b.Fatal("no memory read")
				}
			}
		})
	}
}

// TestStatmHeld: a statm line gives its resident and shared pages; a line
// cut short, not numbers, or saying more shared pages than resident ones
// is not read (what the Go runtime holds stands in).
func TestStatmHeld(t *testing.T) {
	for _, tt := range []struct {
		name                     string
		line                     string
		wantResident, wantShared uint64
		wantOK                   bool
	}{
		{name: "a line as the kernel writes it", line: "3141 1200 450 291 0 2000 0\n",
			wantResident: 1200, wantShared: 450, wantOK: true},
		{name: "cut short", line: "3141 1200"},
		{name: "not numbers", line: "3141 x 450 291 0 2000 0\n"},
		{name: "more shared than resident", line: "3141 400 450 291 0 2000 0\n"},
		{name: "empty", line: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, s, ok := statmHeld([]byte(tt.line))
			if r != tt.wantResident || s != tt.wantShared || ok != tt.wantOK {
				t.Errorf("statmHeld(%q) = %d, %d, %v; want %d, %d, %v", tt.line, r, s, ok,
					tt.wantResident, tt.wantShared, tt.wantOK)
			}
		})
	}
}
