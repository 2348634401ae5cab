package receipt

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestReceiptsFileSystemFull: a receipt that cannot be reserved for want
// of room (a full file system) was E317 saying to check that the
// directory can be written, which it could: the operator was sent to
// the wrong place. Now a reservation refused for want of room, in a
// receipts file or a store's journal, or a receipt written whole (a
// refusal's, Receipt.Write), says the file system is full and to free
// room there. The controls: the same reservations on the same
// file system with room succeed, and a reservation refused for another
// reason (a receipts directory that is a file) keeps the general advice.
func TestReceiptsFileSystemFull(t *testing.T) {
	mnt := testkit.MountSmallFS(t)
	dir := filepath.Join(mnt, "receipts")
	s, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The journal takes skeletons in the room its last page has left,
	// full file system or not: it is reserved until it cannot be.
	reserve := func() (file, journal error) {
		rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
		rec.Timings.Started = time.Now().UTC()
		_, file = rec.Reserve(dir)
		for range 64 {
			rec = NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
			rec.Timings.Started = time.Now().UTC()
			if journal = s.Reserve(rec); journal != nil {
				break
			}
		}
		return file, journal
	}
	if ferr, jerr := reserve(); ferr != nil || jerr != nil {
		t.Fatalf("the control, with room: %v, %v", ferr, jerr)
	}
	fill, err := os.Create(filepath.Join(mnt, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	for err == nil {
		_, err = fill.Write(chunk)
	}
	fill.Close()
	ferr, jerr := reserve()
	whole := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	whole.Timings.Started = time.Now().UTC()
	_, werr := whole.Write(dir) // a receipt written whole, as sabline run writes a refusal's
	for what, err := range map[string]error{"a receipt file": ferr, "the journal": jerr,
		"a receipt written whole": werr} {
		var e *codes.Error
		if !errors.As(err, &e) || e.Code != codes.E317 || e.Hint() != fullDo {
			t.Errorf("%s reserved on a full file system: %v (what to do: %q); want E317 saying "+
				"the file system is full", what, err, hintOf(err))
		}
	}
	other := filepath.Join(t.TempDir(), "a-file")
	testkit.WriteFile(t, other, "")
	rec := NewForSource("/p.vel", []byte("print(1)\n"), budget.Budget{}, nil)
	if _, err := rec.Reserve(other); codes.CodeOf(err) != codes.E317 || hintOf(err) == fullDo {
		t.Errorf("a receipts directory that is a file: %v (what to do: %q); want E317 and "+
			"the general advice", err, hintOf(err))
	}
}

// hintOf is what to do about err, as the command line prints it.
func hintOf(err error) string {
	var e *codes.Error
	if !errors.As(err, &e) {
		return ""
	}
	return e.Hint()
}

// TestRoomless: each error that says the file system has no room for a
// receipt (no space, a quota used up, a journal's record cut short), as
// the calls that meet them wrap them, is given what to do when it is
// full, one past the process's file size limit or its descriptor limit
// what to do about that; any other keeps what it said. A quota is not
// provoked here: root, which the tests run as, passes its limits
// (CAP_SYS_RESOURCE).
func TestRoomless(t *testing.T) {
	const general = "Check --receipts names a directory you can write."
	for _, tt := range []struct {
		name   string
		err    error
		wantDo string
	}{
		{name: "no space", err: &fs.PathError{Op: "write", Path: "/r", Err: syscall.ENOSPC},
			wantDo: fullDo},
		{name: "a quota used up", err: &fs.PathError{Op: "write", Path: "/r", Err: syscall.EDQUOT},
			wantDo: fullDo},
		{name: "a record cut short", err: fmt.Errorf("journal append: %w", io.ErrShortWrite),
			wantDo: fullDo},
		{name: "the file size limit", err: &fs.PathError{Op: "write", Path: "/r", Err: syscall.EFBIG},
			wantDo: sizeLimitDo},
		{name: "the descriptor limit", err: &fs.PathError{Op: "open", Path: "/r", Err: syscall.EMFILE},
			wantDo: codes.DescriptorsDo("writing a receipt")},
		{name: "the system's descriptors", err: &fs.PathError{Op: "open", Path: "/r",
			Err: syscall.ENFILE}, wantDo: codes.DescriptorsDo("writing a receipt")},
		{name: "permission denied (the control)",
			err: &fs.PathError{Op: "open", Path: "/r", Err: syscall.EACCES}, wantDo: general},
		{name: "no such directory (the control)",
			err: &fs.PathError{Op: "open", Path: "/r", Err: syscall.ENOENT}, wantDo: general},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := codes.Errorf(codes.E317, "reserve receipt: %w: nothing ran", tt.err)
			e.Do = general
			if got := roomless(e, tt.err); got.Do != tt.wantDo {
				t.Errorf("what to do for %v: %q, want %q", tt.err, got.Do, tt.wantDo)
			}
		})
	}
}
