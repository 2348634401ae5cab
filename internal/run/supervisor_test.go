package run

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/confine/core"
	"github.com/sabline/sabline/confine/linux"
	"github.com/sabline/sabline/internal/wire"
)

// TestAllocatorThrew tells a crash report of the Go allocator giving up
// (the address-space limit refused an allocation) from other crashes.
func TestAllocatorThrew(t *testing.T) {
	tests := []struct {
		name  string
		crash string
		want  bool
	}{
		{name: "the allocator gave up", want: true, crash: `
goroutine 1 gp=0x320d640261e0 m=0 mp=0x55bcc0 [running]:
runtime.throw({0x4ad7c7?, 0x200?})
	/usr/local/go/src/runtime/panic.go:1229 +0x48
runtime.(*mcache).allocLarge(0x320d64110e38?, 0x400000, 0x1)
	/usr/local/go/src/runtime/mcache.go:259 +0x18d
runtime.mallocgc(0x400000, 0x495240, 0x1)
	/usr/local/go/src/runtime/malloc.go:1156 +0xd3
`},
		{name: "a throw elsewhere: concurrent map writes", crash: `
goroutine 7 gp=0xc000007a40 m=3 mp=0xc000080008 [running]:
runtime.throw({0x4b6f2d?, 0x0?})
	/usr/local/go/src/runtime/panic.go:1229 +0x48
internal/runtime/maps.fatal({0x4b6f2d?, 0x1?})
	/usr/local/go/src/runtime/panic.go:1058 +0x18

goroutine 1 gp=0xc000002380 m=nil [runnable]:
runtime.mallocgc(0x10, 0x0, 0x0)
	/usr/local/go/src/runtime/malloc.go:1156 +0xd3
`},
		{name: "a panic in a host module", crash: `panic: runtime error: index out of range [3] with length 3

goroutine 9 gp=0xc000102380 m=4 mp=0xc000080808 [running]:
main.module.func1()
	/src/module.go:12 +0x1d
`},
		{name: "no report", crash: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := allocatorThrew(tc.crash); got != tc.want {
				t.Fatalf("allocatorThrew = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMemoryGap: what a run's reason says holds its memory limit, a fact
// of the memory layer that leaves the level as it is.
func TestMemoryGap(t *testing.T) {
	watch := "the worker's watch of its resident memory"
	if goruntime.GOOS != "linux" {
		watch = "the worker's watch of its Go runtime's memory"
	}
	tests := []struct {
		name         string
		hold         core.MemoryHold
		outside      bool
		addressSpace bool
		want         string
	}{
		{name: "a cgroup, the watch and the address space", hold: core.MemoryHold{By: linux.CgroupHolds}, addressSpace: true,
			want: "the memory limit of 64 MB is held by " + linux.CgroupHolds + ", " + watch + " (beside the Go runtime's soft limit) and the address-space limit (RLIMIT_AS) as a backstop"},
		{name: "the watch, the supervisor's reads and the address space", outside: true,
			addressSpace: true,
			want: "the memory limit of 64 MB is held by " + watch +
				" (beside the Go runtime's soft limit), " + outsideMemoryWatch +
				" and the address-space limit (RLIMIT_AS) as a backstop"},
		{name: "no cgroup, and why", hold: core.MemoryHold{Why: "none here"}, addressSpace: true,
			want: "the memory limit of 64 MB is held by " + watch + " (beside the Go runtime's soft limit) and the address-space limit (RLIMIT_AS) as a backstop; no cgroup holds it: none here"},
		{name: "the watch alone", want: "the memory limit of 64 MB is held by " + watch + " (beside the Go runtime's soft limit)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := memoryGap(64, tt.hold, tt.outside, tt.addressSpace)
			want := core.Gap{Layer: core.LayerMemory, Kind: core.GapHeld, Text: tt.want}
			if got != want {
				t.Errorf("memoryGap =\n%+v, want\n%+v", got, want)
			}
		})
	}
}

// TestReceiptConfinementIsItsGaps: the confinement a receipt records is
// made of its gaps: the worker's, then what holds the memory limit, a
// fact of the memory layer that leaves the level as it is; the level and
// the reason are the ones the gaps make, and nothing of the reason is
// read to learn them. The control is the same run with no memory limit,
// whose receipt has no memory gap.
func TestReceiptConfinementIsItsGaps(t *testing.T) {
	tests := []struct {
		name       string
		memoryMB   int
		wantLayers []string
	}{
		{name: "a memory limit", memoryMB: 64, wantLayers: []string{core.LayerApply, core.LayerMemory}},
		{name: "none", wantLayers: []string{core.LayerApply}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := superviseProgram(t, "print('ok')\n", []string{"io"}, func(r *Run) { r.MaxMemoryMB = tt.memoryMB })
			held := s.stored(t).Confinement()
			var layers []string
			for _, g := range held.Gaps {
				layers = append(layers, g.Layer)
			}
			if !slices.Equal(layers, tt.wantLayers) {
				t.Fatalf("gaps %+v, want of the layers %q", held.Gaps, tt.wantLayers)
			}
			if err := held.Check(); err != nil {
				t.Errorf("the receipt's confinement %+v: %v", held, err)
			}
			again := core.Result{Level: held.Level, Layers: held.Layers}.With(held.Gaps...)
			if held.Level != core.None || again.Reason != held.Reason {
				t.Errorf("recorded %s %q; its gaps make %s %q", held.Level, held.Reason, again.Level, again.Reason)
			}
		})
	}
}

// TestReadCrashReportSaysItsCut: a crash report past its bound is kept to
// MaxCrashReportBytes, its beginning then a line saying it was cut;
// before, it was kept cut with nothing to say so. The control: one at the
// bound, and a short one, kept whole.
func TestReadCrashReportSaysItsCut(t *testing.T) {
	note := fmt.Sprintf(crashReportCut, MaxCrashReportBytes)
	for _, tc := range []struct {
		name    string
		size    int
		wantCut bool
	}{
		{"past the bound", MaxCrashReportBytes + 1, true},
		{"at the bound", MaxCrashReportBytes, false},
		{"short", 100, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			report := strings.Repeat("y", tc.size)
			if err := os.WriteFile(filepath.Join(tmp, wire.CrashFile), []byte(report), 0o600); err != nil {
				t.Fatal(err)
			}
			got := readCrashReport(tmp)
			want := report
			if tc.wantCut {
				want = report[:MaxCrashReportBytes-len(note)] + note
			}
			if got != want || len(got) > MaxCrashReportBytes {
				t.Errorf("read %d bytes ending %q; want %d ending %q", len(got),
					got[max(0, len(got)-60):], len(want), want[max(0, len(want)-60):])
			}
		})
	}
}
