package run

import (
	"errors"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/program"
	"github.com/sabline/sabline/receipt"
)

// TestReportedTestimony: the fields a receipt names as the worker's word
// are the ones given, the "" of a part the supervisor said itself left
// out, and they are marked testimony only when there are some: a run
// stopped from outside under a grant that widens its worker (its outcome
// the supervisor's own, nothing taken from the worker) carries no
// testimony about fields it does not have.
func TestReportedTestimony(t *testing.T) {
	tests := []struct {
		name          string
		allow         []string
		fields        []string
		wantFields    []string
		wantTestimony bool
	}{
		{name: "ffi granted, the worker reported", allow: []string{"io", "ffi:ctypes"},
			fields:     []string{receipt.FieldOutcome, "", receipt.FieldEffects},
			wantFields: []string{receipt.FieldOutcome, receipt.FieldEffects}, wantTestimony: true},
		{name: "ffi granted, stopped before the worker said anything",
			allow: []string{"io", "ffi:ctypes"}, fields: []string{""}, wantFields: []string{}},
		{name: "ffi granted, no field at all", allow: []string{"io", "ffi:ctypes"},
			wantFields: []string{}},
		{name: "nothing that widens the worker, the worker reported", allow: []string{"io"},
			fields:     []string{receipt.FieldEffects},
			wantFields: []string{receipt.FieldEffects}, wantTestimony: program.Knockout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &receipt.Receipt{}
			reported(rec, lifeBudget(t.TempDir(), tc.allow), tc.fields...)
			if rec.Reported == nil {
				t.Fatal("no Reported part")
			}
			if got := rec.Reported.Fields; !slices.Equal(got, tc.wantFields) {
				t.Errorf("fields %q, want %q", got, tc.wantFields)
			}
			if got := rec.Reported.Testimony; (got != "") != tc.wantTestimony {
				t.Errorf("testimony %q, want one: %v", got, tc.wantTestimony)
			}
		})
	}
}

// TestRetireReleasesWhatItHolds: retire, as startWorker's failure path
// calls it on a worker whose start failed (no process, nothing of
// confinement's started), releases all the supervisor made for it: the
// request pipe is closed (its reader, the worker's end, meets its end),
// nothing holds the result pipe (a write on the worker's end fails), what
// it keeps for the relay is closed, its temporary directory is gone and
// its lock released.
func TestRetireReleasesWhatItHolds(t *testing.T) {
	tests := []struct {
		name  string
		pipes bool // the request and result pipes were made
	}{
		{name: "nothing made but its temporary directory"},
		{name: "its pipes made, its start failed", pipes: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			unlocked := false
			w := &workerProc{tmp: tmp, unlock: func() { unlocked = true }}
			var reqR, resW, kept, keptW *os.File
			if tc.pipes {
				reqR, w.reqW = pipe(t)
				w.resR, resW = pipe(t)
				kept, keptW = pipe(t)
				w.closers = []io.Closer{kept}
			}
			w.retire()
			if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("its temporary directory: %v, want it removed", err)
			}
			if !unlocked {
				t.Error("its lock was not released")
			}
			if !tc.pipes {
				return
			}
			if err := readsEOF(reqR); err != nil {
				t.Errorf("the worker's end of the request pipe: %v, want its end", err)
			}
			if _, err := resW.Write([]byte("{}\n")); err == nil {
				t.Error("a write on the result pipe succeeded: the supervisor still reads it")
			}
			if _, err := keptW.Write([]byte("x")); err == nil {
				t.Error("what the supervisor kept for the relay was not closed")
			}
		})
	}
}

// pipe makes a pipe the test closes at its end.
func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// readsEOF reads r, which no one writes, until its end, waiting at most
// a bound the machine's load sets: nil when it ends, else why not.
func readsEOF(r *os.File) error {
	got := make(chan error, 1)
	go func() {
		n, err := r.Read(make([]byte, 1))
		switch {
		case n > 0:
			err = errors.New("read a byte no one wrote")
		case errors.Is(err, io.EOF):
			err = nil
		}
		got <- err
	}()
	select {
	case err := <-got:
		return err
	case <-time.After(testkit.Bound(5 * time.Second)):
		return errors.New("no end within the bound: its writer is still open")
	}
}
