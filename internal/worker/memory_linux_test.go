package worker

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
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

// TestMemoryGaugeCountsMappings: the Linux watch counts 64 MiB mapped
// outside the Go runtime once written, as it counts 64 MiB the runtime
// allocated, and no longer once it is unmapped; the runtime's own measure
// (runtimeHeld, what the watch read before) does not see the mapping.
func TestMemoryGaugeCountsMappings(t *testing.T) {
	gauge := statmGauge(statmPath)
	debug.FreeOSMemory() // what an earlier test left is given back, not reused
	before := gauge()
	b := make([]byte, 64<<20)
	touch(b)
	if after := gauge(); after < before+grown {
		t.Errorf("64 MiB of the Go heap written: the gauge went %d → %d bytes, want +%d",
			before, after, grown)
	}
	goruntime.KeepAlive(b)

	heldBefore, before := runtimeHeld(), gauge()
	m, err := unix.Mmap(-1, 0, 64<<20, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
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
		t.Errorf("the Go runtime's measure went %d → %d bytes with a mapping it did not make: "+
			"it is not the control this test takes it for", heldBefore, heldMapped)
	}
	if err := unix.Munmap(m); err != nil {
		t.Fatal(err)
	}
	if unmapped := gauge(); unmapped > mapped-grown {
		t.Errorf("64 MiB unmapped: the gauge went %d → %d bytes, want −%d", mapped, unmapped, grown)
	}
}

// TestMemoryGaugeStandsIn: where statm cannot be opened, or what it holds
// is not statm's line, the gauge reads what the Go runtime holds instead,
// and sees the runtime's memory grow.
func TestMemoryGaugeStandsIn(t *testing.T) {
	garbled := filepath.Join(t.TempDir(), "statm")
	if err := os.WriteFile(garbled, []byte("a b c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, path string }{
		{"no such file", filepath.Join(t.TempDir(), "absent")},
		{"not statm's line", garbled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			gauge := statmGauge(tt.path)
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

// TestAnonymousPages: statm's resident pages less its shared ones, and
// false for a line that does not give both.
func TestAnonymousPages(t *testing.T) {
	for _, tt := range []struct {
		name   string
		line   string
		want   uint64
		wantOK bool
	}{
		{"statm's line", "283425 5376 3072 523 0 13474 0\n", 2304, true},
		{"nothing shared", "10 7 0 1 0 5 0", 7, true},
		{"two fields", "10 7", 0, false},
		{"empty", "", 0, false},
		{"not a number", "10 x 3 1 0 5 0", 0, false},
		{"negative", "10 -7 3 1 0 5 0", 0, false},
		{"more shared than resident", "10 3 7 1 0 5 0", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := anonymousPages([]byte(tt.line))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("anonymousPages(%q) = %d, %v; want %d, %v", tt.line, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// BenchmarkMemoryGauge: one read of each measure the watch could take
// every 5 ms: statm's (the Linux watch's), runtime/metrics' (the watch's
// elsewhere) and ReadMemStats' (the stand-in, which stops the world).
func BenchmarkMemoryGauge(b *testing.B) {
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	for _, bb := range []struct {
		name  string
		gauge func() uint64
	}{
		{"statm", statmGauge(statmPath)},
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
