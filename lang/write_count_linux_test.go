package lang

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/internal/testkit"
)

// TestWriteCountedHoweverItEnds: an fs.write or fs.append that made its
// file, emptied it or wrote part of its data, and then failed (here past
// the process's file size limit, EFBIG), changed the disk, and is a use of
// its grant, as fs.mkdir's is: the receipt of a run whose only write was
// such a call said the grant was never used, beside the file it left. The
// controls: a write that succeeds is one use, and one that fails before
// anything is made (its directory is missing), or that fails and changed
// nothing (an append to a file already at the limit), is none.
func TestWriteCountedHoweverItEnds(t *testing.T) {
	const limit = 64 << 10 // the file size limit while the program runs
	big := strings.Repeat("x", 4*limit)
	tests := []struct {
		name     string
		src      string
		before   string // out/f's contents before the run; "" for no file
		code     codes.Code
		wantSize int64 // out/f's size after the run; -1 for no file
		wantUses int
	}{
		{
			name:     "made the file and part of its data, then failed",
			src:      `fs.write("out/f", BIG)`,
			code:     codes.E314,
			wantSize: limit,
			wantUses: 1,
		},
		{
			name:     "emptied the file, then failed",
			src:      `fs.write("out/f", BIG)`,
			before:   "kept",
			code:     codes.E314,
			wantSize: limit,
			wantUses: 1,
		},
		{
			name:     "appended part, then failed",
			src:      `fs.append("out/f", BIG)`,
			before:   "kept",
			code:     codes.E314,
			wantSize: limit,
			wantUses: 1,
		},
		{
			name:     "written whole",
			src:      `fs.write("out/f", "small")`,
			wantSize: 5,
			wantUses: 1,
		},
		{
			name:     "failed before anything was made",
			src:      `fs.write("out/missing/f", BIG)`,
			code:     codes.E314,
			wantSize: -1,
			wantUses: 0,
		},
		{
			name:     "failed and changed nothing",
			src:      `fs.append("out/f", "x")`,
			before:   strings.Repeat("y", limit),
			code:     codes.E314,
			wantSize: limit,
			wantUses: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testkit.Scratch(t)
			out := filepath.Join(dir, "out")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(out, "f")
			if tt.before != "" {
				testkit.WriteFile(t, f, tt.before)
			}
			limitFileSize(t, limit)
			src := "BIG = \"x\" * " + strconv.Itoa(len(big)) + "\n" + tt.src + "\n"
			r := runSrc(t, Config{Budget: budget.MustParse(dir, "fs:write:out@1"), Cwd: dir}, src)
			if tt.code == "" && r.err != nil {
				t.Fatalf("run: %v", r.err)
			}
			if tt.code != "" && codes.CodeOf(r.err) != tt.code {
				t.Fatalf("run: %v, want %s", r.err, tt.code)
			}
			size := int64(-1)
			if fi, err := os.Stat(f); err == nil {
				size = fi.Size()
			}
			if size != tt.wantSize {
				t.Errorf("out/f is %d bytes after the run, want %d (-1: no file)", size, tt.wantSize)
			}
			if got := usesOf(t, r.in, "fs:write:"+out+"@1"); got != tt.wantUses {
				t.Errorf("fs:write:%s@1 used %d times, want %d (%v)", out, got, tt.wantUses, r.err)
			}
		})
	}
}

// limitFileSize lowers the process's file size limit (RLIMIT_FSIZE) to n
// bytes until the test ends: a write past it fails with EFBIG (Go's
// runtime ignores the SIGXFSZ that comes with it). No test of this
// package runs beside it (none is parallel).
func limitFileSize(t *testing.T, n uint64) {
	t.Helper()
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("no file size limit here: %v", err)
	}
	lim := unix.Rlimit{Cur: n, Max: old.Max}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		t.Skipf("the file size limit cannot be lowered here: %v", err)
	}
	t.Cleanup(func() {
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
			t.Errorf("restore the file size limit: %v", err)
		}
	})
}
