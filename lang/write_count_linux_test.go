package lang

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
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
// nothing (an append to a file already at the limit, or under a limit of
// 0), is none. A write that emptied its file and then wrote none of its
// data (a limit of 0) changed it all the same.
func TestWriteCountedHoweverItEnds(t *testing.T) {
	if spec := os.Getenv(fsizeChildEnv); spec != "" {
		runUnderLimit(t, spec)
		return
	}
	const limit = 64 << 10 // the file size limit while the program runs
	big := strings.Repeat("x", 4*limit)
	tests := []struct {
		name     string
		src      string
		before   string // out/f's contents before the run; "" for no file
		zero     bool   // a file size limit of 0, not limit
		code     codes.Code
		wantSize int64 // out/f's size after the run; -1 for no file
		wantUses int
	}{
		{
			name:     "made the file and part of its data then failed",
			src:      `fs.write("out/f", BIG)`,
			code:     codes.E314,
			wantSize: limit,
			wantUses: 1,
		},
		{
			name:     "emptied the file then failed",
			src:      `fs.write("out/f", BIG)`,
			before:   "kept",
			code:     codes.E314,
			wantSize: limit,
			wantUses: 1,
		},
		{
			name:     "appended part then failed",
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
			name:     "emptied the file and wrote none of it",
			src:      `fs.write("out/f", "data")`,
			before:   "kept",
			zero:     true,
			code:     codes.E314,
			wantSize: 0,
			wantUses: 1,
		},
		{
			name:     "appended none of it (the control)",
			src:      `fs.append("out/f", "data")`,
			before:   "kept",
			zero:     true,
			code:     codes.E314,
			wantSize: 4,
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
			src := "BIG = \"x\" * " + strconv.Itoa(len(big)) + "\n" + tt.src + "\n"
			lim := limit
			if tt.zero {
				lim = 0
			}
			code, uses := writeUnderLimit(t, dir, src, lim)
			if code != tt.code {
				t.Fatalf("run: %q, want %q", code, tt.code)
			}
			size := int64(-1)
			if fi, err := os.Stat(f); err == nil {
				size = fi.Size()
			}
			if size != tt.wantSize {
				t.Errorf("out/f is %d bytes after the run, want %d (-1: no file)", size, tt.wantSize)
			}
			if uses != tt.wantUses {
				t.Errorf("fs:write:%s@1 used %d times, want %d", out, uses, tt.wantUses)
			}
		})
	}
}

// fsizeChildEnv, set, makes the test binary run one program under a file
// size limit (runUnderLimit) and say how it ended.
const fsizeChildEnv = "SABLINE_LANG_FSIZE_CHILD"

// writeUnderLimit runs src, granted fs:write:out@1 in dir, in a child
// process of this test binary whose file size limit (RLIMIT_FSIZE) is
// limit bytes, and returns the run's error code ("" for none) and the
// grant's uses. The limit is the child's alone: lowered in this process,
// it failed the test framework's own writes past it.
func writeUnderLimit(t *testing.T, dir, src string, limit int) (codes.Code, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteCountedHoweverItEnds$")
	cmd.Env = append(os.Environ(), fsizeChildEnv+"="+strconv.Itoa(limit)+"\n"+dir+"\n"+src)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child under a file size limit: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		var code string
		var uses int
		if n, _ := fmt.Sscanf(line, "code=%q uses=%d", &code, &uses); n == 2 {
			return codes.Code(code), uses
		}
	}
	t.Fatalf("the child said no code and uses:\n%s", out)
	return "", 0
}

// runUnderLimit is the child of writeUnderLimit: its job is spec, "LIMIT
// \nDIR\nSRC". It compiles SRC, lowers its file size limit, runs it and
// prints the run's code and the grant's uses. Go's runtime ignores the
// SIGXFSZ that comes with a write past the limit, which fails with EFBIG.
func runUnderLimit(t *testing.T, spec string) {
	limit, rest, _ := strings.Cut(spec, "\n")
	dir, src, _ := strings.Cut(rest, "\n")
	n, err := strconv.ParseUint(limit, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "main.vel")
	testkit.WriteFile(t, prog, src) // before the limit, which may be 0
	in := NewInterp(Config{Budget: budget.MustParse(dir, "fs:write:out@1"), Cwd: dir,
		Stdout: &bytes.Buffer{}, Stdin: strings.NewReader("")})
	compiled, err := in.Compile(prog, PredeclaredNames())
	if err != nil {
		t.Fatal(err)
	}
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
		t.Fatalf("no file size limit here: %v", err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: n, Max: old.Max}); err != nil {
		t.Fatalf("the file size limit cannot be lowered here: %v", err)
	}
	err = in.Exec(compiled, in.PredeclaredFor(compiled))
	fmt.Printf("code=%q uses=%d\n", codes.CodeOf(err), usesOf(t, in,
		"fs:write:"+filepath.Join(dir, "out")+"@1"))
}
