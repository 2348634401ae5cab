package receipt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
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
			rec.RunParameters.Confinement = core.Full
			rec.Finish()
			if _, err := rec.Stored(); err != nil {
				t.Fatalf("Stored: %v, want the receipt finished in its reserved space", err)
			}
			got, err := Load(rec.path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Outcome.Code != codes.E314 || got.Outcome.Status != StatusFailed || got.RunParameters.Confinement != core.Full ||
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
	if got.Outcome.Status != StatusUnfinished || got.Outcome.Code != codes.E327 ||
		got.Outcome.ExitStatus != codes.ExitReceipt {
		t.Fatalf("skeleton outcome %+v, want unfinished E327, exit status %d", got.Outcome,
			codes.ExitReceipt)
	}
	if want := "the run started at " + rec.Timings.Started.Format(time.RFC3339) +
		" and its receipt was not finished: "; !strings.HasPrefix(got.Outcome.Message, want) ||
		!strings.HasSuffix(got.Outcome.Message, " was stopped, or could not write it") {
		t.Fatalf("skeleton message %q, want it to begin %q and say who was stopped",
			got.Outcome.Message, want)
	}
}

// TestReserveLongArguments: a run with long arguments (past
// MaxArgsBytes) reserves a skeleton that keeps only their digest, and a
// receipt finished in that reserved space (a full file system) keeps
// the digest too, saying in Cut that the arguments were left out.
func TestReserveLongArguments(t *testing.T) {
	args := []string{strings.Repeat("a", 100<<10)}
	rec := New("/p.vel", budget.Budget{}, args)
	rec.Timings.Started = time.Now().UTC()
	if _, err := rec.Reserve(t.TempDir()); err != nil {
		t.Fatalf("reserve: %v", err)
	}
	fi, err := os.Stat(rec.path)
	if err != nil || fi.Size() != ReserveBytes {
		t.Fatalf("reserved %d bytes (%v), want %d: the skeleton keeps no argument's bytes", fi.Size(),
			err, ReserveBytes)
	}
	skel, err := Load(rec.path)
	want := argsDigest(args)
	if err != nil || len(skel.Args) != 0 || skel.ArgsCut == nil || *skel.ArgsCut != want {
		t.Fatalf("skeleton: %v, args %d, args_cut %+v; want none kept and %+v", err, len(skel.Args),
			skel.ArgsCut, want)
	}
	rec.Outcome = OutcomeOf(nil)
	if err := overwriteReserved(rec); err != nil {
		t.Fatalf("finish in the reserved space: %v", err)
	}
	got, err := Load(rec.path)
	if err != nil || got.Outcome.Status != StatusOK {
		t.Fatalf("finished receipt: %v, %+v", err, got)
	}
	if len(got.Args) != 0 || got.ArgsCut == nil || *got.ArgsCut != want ||
		!slices.ContainsFunc(got.Cut, func(c string) bool { return strings.HasPrefix(c, "args: ") }) {
		t.Fatalf("finished in the reserved space: args %d, args_cut %+v, cut %q; want the digest "+
			"%+v and a cut line for args", len(got.Args), got.ArgsCut, got.Cut, want)
	}
}

// TestReserveFails: a receipt that cannot be reserved is E317, saying
// nothing ran, and Stored says so too: Supervise reads it there.
func TestReserveFails(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string, r *Receipt) string // returns the receipts directory
		wantMsg string
	}{
		{name: "the directory is a file", wantMsg: "receipts directory",
			setup: func(t *testing.T, dir string, r *Receipt) string {
				testkit.WriteFile(t, filepath.Join(dir, "file"), "x")
				return filepath.Join(dir, "file")
			}},
		{name: "the receipt's name is taken by a directory", wantMsg: "reserve receipt",
			setup: func(t *testing.T, dir string, r *Receipt) string {
				// A directory that is not empty cannot be renamed over.
				testkit.WriteFile(t, filepath.Join(dir, r.fileName(), "keep"), "x")
				return dir
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := New("/p.vel", budget.Budget{}, nil)
			rec.Timings.Started = time.Now().UTC()
			_, err := rec.Reserve(tt.setup(t, testkit.Scratch(t), rec))
			testkit.WantError(t, err, codes.E317, "", tt.wantMsg, "nothing ran")
			path, stored := rec.Stored()
			if path != "" || stored != err {
				t.Errorf("Stored() = %q, %v; want no path and the error Reserve returned", path, stored)
			}
		})
	}
}

// TestFitted: a receipt fitted to its reserved space keeps the innermost
// frame of the stack and the program's own digest, and names each cut
// with what it took; one frame and one digest are no cut.
func TestFitted(t *testing.T) {
	frames := []string{"/p/a.vel:3:1 in f", "/p/a.vel:7:1 in g", "/p/a.vel:9:1 in main"}
	files := []program.FileDigest{{Path: "/p/a.vel"}, {Path: "/p/b.vel"}, {Path: "/p/c.vel"}}
	tests := []struct {
		name    string
		n       int // the frames and the files the receipt holds
		wantCut []string
	}{
		{name: "one frame, the program's own digest", n: 1},
		{name: "three frames, three files", n: 3, wantCut: []string{
			"outcome.stack: all but the innermost of its 3 frames",
			"program.files: the digests of the 2 files the program loaded",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := New("/p/a.vel", budget.Budget{}, nil)
			rec.Outcome = OutcomeOf(&codes.Error{Code: codes.E314, Msg: "full", Stack: frames[:tt.n]})
			rec.Program.Files = files[:tt.n]
			got := rec.fitted()
			if !slices.Equal(got.Cut, tt.wantCut) {
				t.Errorf("cut %q, want %q", got.Cut, tt.wantCut)
			}
			stack, kept := got.Outcome.Stack, got.Program.Files
			if !slices.Equal(stack, frames[:1]) || !slices.Equal(kept, files[:1]) {
				t.Errorf("kept the stack %q and the files %v, "+
					"want the innermost frame and the program's digest", stack, kept)
			}
		})
	}
}

// TestReservedBytesFillsItsSpace: the receipt written over its
// reservation is exactly the space's size, a newline last: whole when it
// fits with that newline, cut when one byte short, and refused when even
// cut it does not fit.
func TestReservedBytesFillsItsSpace(t *testing.T) {
	rec := New("/p/a.vel", budget.Budget{}, nil)
	rec.Timings.Started = t0
	// The outer frame is longer than the note that says it was cut.
	outer := "/p/" + strings.Repeat("d", 200) + "/a.vel:9:1 in main"
	stack := []string{"/p/a.vel:3:1 in f", outer}
	rec.Outcome = OutcomeOf(&codes.Error{Code: codes.E314, Msg: "full", Stack: stack})
	whole, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	cut, err := json.MarshalIndent(rec.fitted(), "", "  ")
	if err != nil || len(cut) >= len(whole) {
		t.Fatalf("the cut receipt: %d bytes (%v), want fewer than the whole's %d",
			len(cut), err, len(whole))
	}
	tests := []struct {
		name    string
		size    int
		wantCut bool
		wantErr string
	}{
		{name: "the whole receipt and its newline", size: len(whole) + 1},
		{name: "a byte short of the whole", size: len(whole), wantCut: true},
		{name: "the cut receipt and its newline", size: len(cut) + 1, wantCut: true},
		{name: "a byte short of the cut receipt", size: len(cut), wantErr: "more than the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, _, err := reservedBytes(rec, tt.size)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("reservedBytes: %v, want an error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var padded bytes.Buffer
			if err := writePadded(&padded, data, tt.size); err != nil {
				t.Fatal(err)
			}
			data = padded.Bytes()
			if len(data) != tt.size || data[len(data)-1] != '\n' {
				t.Fatalf("%d bytes ending %q, want %d ending in a newline",
					len(data), data[len(data)-1], tt.size)
			}
			got, err := Parse("reserved", data)
			if err != nil {
				t.Fatal(err)
			}
			if (len(got.Cut) > 0) != tt.wantCut || got.Outcome.Code != codes.E314 {
				t.Errorf("cut %q, outcome %+v; want cut %v and the run's outcome",
					got.Cut, got.Outcome, tt.wantCut)
			}
		})
	}
}

// TestFittedConnections: a receipt whose run made more connections than
// its reserved space holds keeps the first fittedConnections and counts
// the rest; all the connections a run may list, refused with the longest
// message a broker sends, fit the space a receipt reserves.
func TestFittedConnections(t *testing.T) {
	rec := New("/p/a.vel", budget.Budget{}, nil)
	long := strings.Repeat("x", 1024)
	for i := range MaxConnectionsListed {
		rec.Observed.Connections = append(rec.Observed.Connections, Connection{Network: "tcp",
			Host: strings.Repeat("h", 253), Port: i + 1, Code: codes.E335, Refused: long})
	}
	rec.Observed.ConnectionsUnlisted = 5
	data, _, err := reservedBytes(rec, ReserveBytes)
	if err != nil {
		t.Fatalf("a receipt with %d connections does not fit: %v", MaxConnectionsListed, err)
	}
	var back Receipt
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got := back.Observed
	if len(got.Connections) != fittedConnections ||
		got.ConnectionsUnlisted != 5+MaxConnectionsListed-fittedConnections {
		t.Fatalf("kept %d connections and counted %d more", len(got.Connections),
			got.ConnectionsUnlisted)
	}
	if !slices.ContainsFunc(back.Cut, func(c string) bool {
		return strings.HasPrefix(c, "observed.connections:")
	}) {
		t.Errorf("the cut %q does not name the connections", back.Cut)
	}
	few := New("/p/a.vel", budget.Budget{}, nil)
	few.Observed.Connections = rec.Observed.Connections[:2]
	if f := few.fitted(); len(f.Observed.Connections) != 2 || len(f.Cut) != 0 {
		t.Errorf("two connections were cut: %+v, %q", f.Observed.Connections, f.Cut)
	}
}

// countingWriter records the writes made to it and fails the one at
// failAt (counted from 1; never when 0).
type countingWriter struct {
	buf            bytes.Buffer
	writes, failAt int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes == w.failAt {
		return 0, errors.New("disk full")
	}
	return w.buf.Write(p)
}

// TestWritePadded: the data, then blanks and a newline to the size asked
// for, written a block at a time, at every length about a block's edge;
// data as long as the size or longer is written as it is; a failed write
// is returned, nothing written after it.
func TestWritePadded(t *testing.T) {
	data := []byte(`{"a": 1}`)
	block := len(blanks) - 1 // the blanks of a block not the last
	tests := []struct {
		name       string
		size       int
		wantLen    int
		wantWrites int
	}{
		{name: "longer than the size", size: 3, wantLen: len(data), wantWrites: 1},
		{name: "as long as the size", size: len(data), wantLen: len(data), wantWrites: 1},
		{name: "a newline short", size: len(data) + 1, wantLen: len(data) + 1, wantWrites: 2},
		{name: "a block's blanks and newline", size: len(data) + block + 1,
			wantLen: len(data) + block + 1, wantWrites: 2},
		{name: "a byte past a block", size: len(data) + block + 2,
			wantLen: len(data) + block + 2, wantWrites: 3},
		{name: "a receipt's reservation", size: ReserveBytes, wantLen: ReserveBytes,
			wantWrites: 1 + (ReserveBytes-len(data)+block-1)/block},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w countingWriter
			if err := writePadded(&w, data, tt.size); err != nil {
				t.Fatal(err)
			}
			got := w.buf.Bytes()
			if len(got) != tt.wantLen || w.writes != tt.wantWrites {
				t.Fatalf("%d bytes in %d writes, want %d in %d", len(got), w.writes, tt.wantLen,
					tt.wantWrites)
			}
			if !bytes.HasPrefix(got, data) {
				t.Fatalf("it starts %q, want the data %q", got[:min(len(got), 20)], data)
			}
			if pad := got[len(data):]; len(pad) > 0 {
				if strings.Trim(string(pad[:len(pad)-1]), " ") != "" || pad[len(pad)-1] != '\n' {
					t.Errorf("the padding is not blanks and a newline: %q", pad)
				}
			}
			if !json.Valid(got) {
				t.Errorf("the padded data is not JSON")
			}
		})
	}
	t.Run("a failed write", func(t *testing.T) {
		w := countingWriter{failAt: 2}
		if err := writePadded(&w, data, ReserveBytes); err == nil || w.writes != 2 {
			t.Fatalf("%v after %d writes, want the second write's error, then none", err, w.writes)
		}
	})
}
