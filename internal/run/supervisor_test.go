package run

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

func record(t *testing.T, rs ...workerResult) []byte {
	t.Helper()
	var out []byte
	for _, r := range rs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}

// TestReadResults: what a program that can write on the result pipe (raw
// system calls under ffi:ctypes) can and cannot make a receipt say.
func TestReadResults(t *testing.T) {
	full := confine.Result{Level: confine.Full, Reason: "held", Layers: []string{"seccomp"}}
	none := confine.Result{Level: confine.None, Reason: "forged", Layers: []string{}}
	pre := workerResult{Confinement: full, Files: []program.FileDigest{{Path: "/p.vel", SHA256: "aa"}}}
	ok := receipt.Outcome{Status: receipt.StatusOK, ExitStatus: 0}
	failed := receipt.Outcome{Status: receipt.StatusFailed, Code: codes.E302, ExitStatus: 1}
	tests := []struct {
		name            string
		records         []workerResult
		wantFinal       bool
		wantAfter       bool // the final record taken is not the first: the program could have written it
		wantLevel       confine.Level
		wantStatus      string
		wantFile        string
		wantFaultsCount int
	}{
		{name: "confined, then the worker's own final record",
			records:   []workerResult{pre, {Confinement: full, Outcome: failed}},
			wantFinal: true, wantAfter: true, wantLevel: confine.Full, wantStatus: receipt.StatusFailed, wantFile: "/p.vel"},
		{name: "a run that ended before it was confined: one final record",
			records:   []workerResult{{Confinement: none, Outcome: failed}},
			wantFinal: true, wantLevel: confine.None, wantStatus: receipt.StatusFailed},
		{name: "a forged record after the first cannot change the confinement, files or faults",
			records: []workerResult{pre,
				{Confinement: none, Files: []program.FileDigest{{Path: "/other.vel"}}, Faults: []receipt.FaultAttempt{{Result: receipt.FaultWent}}, Outcome: ok},
				{Confinement: full, Outcome: failed}},
			wantFinal: true, wantAfter: true, wantLevel: confine.Full, wantStatus: receipt.StatusFailed, wantFile: "/p.vel"},
		{name: "the last final record is the worker's own",
			records:   []workerResult{pre, {Outcome: ok}, {Outcome: failed}},
			wantFinal: true, wantAfter: true, wantLevel: confine.Full, wantStatus: receipt.StatusFailed, wantFile: "/p.vel"},
		{name: "killed after it was confined: the level stays, no outcome",
			records:   []workerResult{pre},
			wantFinal: false, wantLevel: confine.Full, wantFile: "/p.vel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, final, after, bad := readResults(record(t, tc.records...))
			if bad != nil {
				t.Errorf("bad = %v, want none", bad)
			}
			if final != tc.wantFinal || after != tc.wantAfter {
				t.Errorf("final, after = %v, %v; want %v, %v", final, after, tc.wantFinal, tc.wantAfter)
			}
			if res.Confinement.Level != tc.wantLevel {
				t.Errorf("level = %q, want %q", res.Confinement.Level, tc.wantLevel)
			}
			if res.Outcome.Status != tc.wantStatus {
				t.Errorf("status = %q, want %q", res.Outcome.Status, tc.wantStatus)
			}
			if got := ""; len(res.Files) > 0 {
				got = res.Files[0].Path
				if got != tc.wantFile {
					t.Errorf("file = %q, want %q", got, tc.wantFile)
				}
			} else if tc.wantFile != "" {
				t.Errorf("no files, want %q", tc.wantFile)
			}
			if len(res.Faults) != tc.wantFaultsCount {
				t.Errorf("%d fault attempts, want %d", len(res.Faults), tc.wantFaultsCount)
			}
		})
	}
}

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

// TestWorkerAppliesOnlyTheSentPolicy: a worker sent no policy, or one whose
// digest is not the one the receipt records, applies nothing and says so;
// it never derives a policy of its own.
func TestWorkerAppliesOnlyTheSentPolicy(t *testing.T) {
	p := confine.OSPolicy(budget.MustParse("/", "io"), confine.Options{})
	for _, tt := range []struct {
		name string
		req  request
	}{
		{name: "no policy", req: request{Confine: confine.ModeDefault, PolicySHA256: p.SHA256()}},
		{name: "another digest", req: request{Confine: confine.ModeDefault, Policy: &p, PolicySHA256: strings.Repeat("0", 64)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := (&worker{}).confine(&tt.req)
			if got.Level != confine.None || len(got.Layers) != 0 || !strings.Contains(got.Reason, "was not sent the policy") {
				t.Errorf("confinement %+v, want none, no layers, saying the policy was not sent", got)
			}
		})
	}
}

// TestMemoryGap: what a run's reason says holds its memory limit, a fact
// of the memory layer that leaves the level as it is.
func TestMemoryGap(t *testing.T) {
	tests := []struct {
		name         string
		hold         confine.MemoryHold
		addressSpace bool
		want         string
	}{
		{name: "a cgroup, the watch and the address space", hold: confine.MemoryHold{By: confine.CgroupHolds}, addressSpace: true,
			want: "the memory limit of 64 MB is held by " + confine.CgroupHolds + ", the worker's watch of its Go runtime's memory (beside the runtime's soft limit) and the address-space limit (RLIMIT_AS) as a backstop"},
		{name: "no cgroup, and why", hold: confine.MemoryHold{Why: "none here"}, addressSpace: true,
			want: "the memory limit of 64 MB is held by the worker's watch of its Go runtime's memory (beside the runtime's soft limit) and the address-space limit (RLIMIT_AS) as a backstop; no cgroup holds it: none here"},
		{name: "the watch alone", want: "the memory limit of 64 MB is held by the worker's watch of its Go runtime's memory (beside the runtime's soft limit)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := memoryGap(64, tt.hold, tt.addressSpace)
			want := confine.Gap{Layer: confine.LayerMemory, Kind: confine.GapHeld, Text: tt.want}
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
		{name: "a memory limit", memoryMB: 64, wantLayers: []string{confine.LayerApply, confine.LayerMemory}},
		{name: "none", wantLayers: []string{confine.LayerApply}},
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
			again := confine.Result{Level: held.Level, Layers: held.Layers}.With(held.Gaps...)
			if held.Level != confine.None || again.Reason != held.Reason {
				t.Errorf("recorded %s %q; its gaps make %s %q", held.Level, held.Reason, again.Level, again.Reason)
			}
		})
	}
}
