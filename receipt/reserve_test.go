package receipt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/program"
)

// TestReceiptFinishedInReservedSpace: a program that fills the file system
// its receipts live on still has a finished receipt; a receipt that cannot
// be finished at all stays, saying so (E327).
func TestReceiptFinishedInReservedSpace(t *testing.T) {
	mnt := testkit.MountSmallFS(t)
	rec := New("/p.vel", budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	if _, err := rec.Reserve(mnt); err != nil {
		t.Fatal(err)
	}
	fillFS(t, mnt)
	rec.Outcome = OutcomeOf(codes.Errorf(codes.E314, "full"))
	rec.Finish()
	if _, err := rec.Stored(); err != nil {
		t.Fatalf("Stored: %v, want the receipt finished in its reserved space", err)
	}
	got, err := Load(rec.path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome.Code != codes.E314 {
		t.Fatalf("stored outcome %+v, want E314", got.Outcome)
	}

	// The same receipt, unreserved (removed), on a file system that is still
	// full: it cannot be finished, and says so.
	rec2 := New("/p.vel", budget.Budget{}, nil)
	rec2.Timings.Started = time.Now().UTC()
	rec2.path = filepath.Join(mnt, "gone", rec2.fileName())
	rec2.Outcome = OutcomeOf(nil)
	rec2.Finish()
	if _, err := rec2.Stored(); codes.CodeOf(err) != codes.E327 {
		t.Fatalf("Stored: %v, want E327", err)
	}
	if info, _ := codes.Info(codes.E327); info.Exit == codes.ExitUsage {
		t.Fatal("E327 exits as a usage error: it would claim that nothing ran")
	}
}

// fillFS fills the file system mounted at mnt, and fails the test when
// it still takes 4 KiB.
func fillFS(t *testing.T, mnt string) {
	t.Helper()
	f, err := os.CreateTemp(mnt, "fill-")
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			break // ENOSPC: the file system is full
		}
	}
	f.Close()
	if probe, err := os.CreateTemp(mnt, "probe-"); err == nil {
		_, werr := probe.Write(bytes.Repeat([]byte("p"), 4096))
		probe.Close()
		os.Remove(probe.Name())
		if werr == nil {
			t.Fatal("the file system still takes 4 KiB: the test did not fill it")
		}
	}
}

// TestReceiptFitsItsReservedSpace: on a full file system, a receipt is
// finished in the space reserved for it whatever the run left in it: an
// error 45,000 calls deep with a message of two megabytes (bounded when
// the outcome is made), the digests of 3,000 loaded files (cut to fit,
// and the receipt says so). How the run ended, its effects and its level
// stay. The control, a receipt that fits, is finished whole with nothing
// cut.
func TestReceiptFitsItsReservedSpace(t *testing.T) {
	deep := &codes.Error{Code: codes.E314, Msg: strings.Repeat("m", 2<<20)}
	for i := range 45000 {
		deep.Stack = append(deep.Stack, fmt.Sprintf("/p/%s.vel:%d:5 in f", strings.Repeat("d", 900), i))
	}
	files := make([]program.FileDigest, 3000)
	for i := range files {
		files[i] = program.FileDigest{Path: fmt.Sprintf("/p/lib/%s%d.vel", strings.Repeat("l", 100), i), SHA256: strings.Repeat("a", 64)}
	}
	tests := []struct {
		name    string
		outcome error
		files   []program.FileDigest
		wantCut []string // the fields Cut names, in order
	}{
		{name: "a receipt that fits", outcome: codes.Errorf(codes.E314, "full"), files: files[:3]},
		{name: "the largest bounded outcome", outcome: deep, files: files[:1]},
		{name: "3,000 loaded files", outcome: deep, files: files,
			wantCut: []string{"outcome.stack", "program.files", "outcome.message"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mnt := testkit.MountSmallFS(t)
			rec := New("/p.vel", budget.MustParse("/", "io,fs:write:/p"), nil)
			rec.Timings.Started = time.Now().UTC()
			if _, err := rec.Reserve(mnt); err != nil {
				t.Fatal(err)
			}
			fillFS(t, mnt)
			rec.Outcome = OutcomeOf(tt.outcome)
			rec.Program.Files = tt.files
			rec.Effects = []budget.Usage{{Grant: "io", Uses: 2}, {Grant: "fs:write:/p", Uses: 7}}
			rec.RunParameters.Confinement = confine.Full
			rec.Finish()
			if _, err := rec.Stored(); err != nil {
				t.Fatalf("Stored: %v, want the receipt finished in its reserved space", err)
			}
			got, err := Load(rec.path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Outcome.Code != codes.E314 || got.Outcome.Status != StatusFailed || got.RunParameters.Confinement != confine.Full ||
				!slices.Equal(got.Effects, rec.Effects) || len(got.Program.Files) == 0 || got.Program.Files[0] != tt.files[0] {
				t.Fatalf("stored %+v, %s, %+v: want the run's outcome, level, effects and the program's digest", got.Outcome, got.RunParameters.Confinement, got.Effects)
			}
			var cut []string
			for _, c := range got.Cut {
				field, _, _ := strings.Cut(c, ":")
				cut = append(cut, field)
			}
			if !slices.Equal(cut, tt.wantCut) {
				t.Errorf("cut %q, want the fields %q", got.Cut, tt.wantCut)
			}
		})
	}
}

// TestSkeletonSaysUnfinished: the reserved receipt, before the run ends,
// says the run started and was not finished, and is ReserveBytes bytes.
func TestSkeletonSaysUnfinished(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", "receipts")
	rec := New("/p.vel", budget.Budget{}, nil)
	rec.Timings.Started = time.Now().UTC()
	made, err := rec.Reserve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Dir(filepath.Dir(filepath.Dir(dir))); len(made) != 1 || made[0] != filepath.Join(want, "a") {
		t.Fatalf("made %q, want the topmost directory made, %s", made, filepath.Join(want, "a"))
	}
	fi, err := os.Stat(rec.path)
	if err != nil || fi.Size() != ReserveBytes {
		t.Fatalf("reserved receipt: %v, size %d, want %d", err, fi.Size(), ReserveBytes)
	}
	got, err := Load(rec.path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome.Status != StatusUnfinished || got.Outcome.Code != codes.E327 {
		t.Fatalf("skeleton outcome %+v, want unfinished E327", got.Outcome)
	}
}

// TestReserveLongArguments: a receipt larger than ReserveBytes (long
// program arguments) still has its space reserved, twice its skeleton.
func TestReserveLongArguments(t *testing.T) {
	rec := New("/p.vel", budget.Budget{}, []string{strings.Repeat("a", 100<<10)})
	rec.Timings.Started = time.Now().UTC()
	if _, err := rec.Reserve(t.TempDir()); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	fi, err := os.Stat(rec.path)
	if err != nil || fi.Size() <= 200<<10 {
		t.Fatalf("reserved %d bytes (%v), want twice the skeleton, more than 200 KiB", fi.Size(), err)
	}
	rec.Outcome = OutcomeOf(nil)
	if err := overwriteReserved(rec); err != nil {
		t.Fatalf("finish in the reserved space: %v", err)
	}
	if got, err := Load(rec.path); err != nil || got.Outcome.Status != StatusOK {
		t.Fatalf("finished receipt: %v, %+v", err, got)
	}
}
