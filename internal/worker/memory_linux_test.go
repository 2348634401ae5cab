package worker

import (
	"bytes"
	"fmt"
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

// TestMemoryGaugeStandsIn: where the status file cannot be opened (which
// the worker says), or read, or what it holds is not a status file's,
// the gauge reads what the Go runtime holds instead, and sees the
// runtime's memory grow.
func TestMemoryGaugeStandsIn(t *testing.T) {
	garbled := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(garbled, []byte("RssAnon: a lot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, path string
		wantWarned bool
	}{
		{"no such file", filepath.Join(t.TempDir(), "absent"), true},
		{"a directory: its read fails", t.TempDir(), false},
		{"not a status file's lines", garbled, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var warned bytes.Buffer
			gauge := statusGauge(tt.path, &warned)
			if got := strings.Contains(warned.String(), "the memory watch reads what the Go runtime holds"); got != tt.wantWarned {
				t.Errorf("the worker said %q: warned %v, want %v", warned.String(), got, tt.wantWarned)
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

// TestResidentHeld: the sum of a status file's RssAnon and RssShmem in
// bytes, and false for lines that do not give each once in kB.
func TestResidentHeld(t *testing.T) {
	line := func(name string, kb any) string { return fmt.Sprintf("%s:\t%8v kB\n", name, kb) }
	status := "Name:\tsabline\n" + line("VmRSS", 7000) + line("RssAnon", 2304) +
		line("RssFile", 4000) + line("RssShmem", 16) + "Threads:\t5\n"
	for _, tt := range []struct {
		name   string
		status string
		want   uint64
		wantOK bool
	}{
		{"a status file", status, (2304 + 16) << 10, true},
		{"nothing shared", line("RssAnon", 7) + line("RssShmem", 0), 7 << 10, true},
		{"no RssShmem", line("RssAnon", 7), 0, false},
		{"RssAnon twice", line("RssAnon", 7) + line("RssAnon", 7), 0, false},
		{"not at a line's start", "Name:\tRssAnon: 1 kB\n" + line("RssShmem", 0), 0, false},
		{"not a number", line("RssAnon", "x") + line("RssShmem", 0), 0, false},
		{"not in kB", "RssAnon:\t7 MB\n" + line("RssShmem", 0), 0, false},
		{"past 16 EiB", line("RssAnon", uint64(1)<<44) + line("RssShmem", 0), 0, false},
		{"empty", "", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := residentHeld([]byte(tt.status))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("residentHeld(%q) = %d, %v; want %d, %v", tt.status, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// FuzzResidentHeld: whatever the status file holds (its Name line is the
// program's to set), the gauge's reading of it does not panic, and what
// it sums is the two lines it found.
func FuzzResidentHeld(f *testing.F) {
	f.Add([]byte("Name:\tsabline\nRssAnon:\t  2304 kB\nRssFile:\t4 kB\nRssShmem:\t16 kB\n"))
	f.Add([]byte("RssAnon: 17592186044415 kB\nRssShmem: 17592186044415 kB\n"))
	f.Add([]byte("RssAnon:\nRssShmem: kB kB\n"))
	f.Fuzz(func(t *testing.T, status []byte) {
		got, ok := residentHeld(status)
		if !ok && got != 0 {
			t.Errorf("residentHeld(%q) = %d, false; want 0 with false", status, got)
		}
		if ok && got > 2<<54 {
			t.Errorf("residentHeld(%q) = %d: past the two lines' bound", status, got)
		}
	})
}

// BenchmarkMemoryGauge: one read of each measure the watch could take
// every 5 ms: the status file's (the Linux watch's), runtime/metrics'
// (the watch's elsewhere, as memory_other.go reads it) and ReadMemStats'
// (the stand-in, which stops the world).
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
