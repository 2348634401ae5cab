package sabline_test

import (
	"bytes"
	"cmp"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sabline/sabline"
	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/codes"
	"github.com/sabline/sabline/confine"
)

// TestGrantedDirectoryNotMade: a write grant whose directory does not
// exist, beneath a parent where it cannot be made (the parent is
// immutable), still runs: the supervisor says on the run's standard
// error why it made nothing, the receipt lists nothing made, and the
// level is partial (the grant is held beneath its parent). The worker
// writes its own standard error as it starts (GODEBUG=inittrace=1), into
// the same writer as the supervisor's line. The control: the same run
// beneath a parent that is not immutable makes the directory, says
// nothing and is full. A directory whose name holds what a terminal acts
// on (an escape sequence, a carriage return, a newline and a line that
// reads as Sabline's, a bidirectional override) is named escaped: the
// line was written raw, and the terminal ran the sequence.
func TestGrantedDirectoryNotMade(t *testing.T) {
	if confine.Probe().LandlockABI < 1 {
		t.Skipf("skipped: full is a Linux kernel's with Landlock; Landlock ABI %d here",
			confine.Probe().LandlockABI)
	}
	t.Setenv("GODEBUG", "inittrace=1")
	const controls = "out\x1b]0;title\a\x1b[2J\r\nsabline: a line of its own\u202e"
	for _, tt := range []struct {
		name      string
		immutable bool
		base      string // the granted directory's name; "" for "out"
		wantLevel string
		wantMade  bool
	}{
		{name: "parent immutable", immutable: true, wantLevel: "partial"},
		{name: "control: parent writable", wantLevel: "full", wantMade: true},
		{name: "parent immutable: a name with control characters", immutable: true, base: controls,
			wantLevel: "partial"},
		{name: "control: parent writable and the same name", base: controls, wantLevel: "full",
			wantMade: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			parent := filepath.Join(dir, "parent")
			if err := os.Mkdir(parent, 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.immutable {
				makeImmutable(t, parent)
			}
			out := filepath.Join(parent, cmp.Or(tt.base, "out"))
			var stderr bytes.Buffer
			res, err := sabline.Run(context.Background(), sabline.Source("p.vel", []byte("print(\"ran\")\n")),
				sabline.Options{Budget: budget.MustParse(dir, "io", "fs:write:"+out), Cwd: dir,
					Receipts: filepath.Join(dir, "receipts"), Timeout: time.Minute, Stderr: &stderr})
			if err == nil {
				err = res.Err()
			}
			if err != nil || string(res.Stdout) != "ran\n" {
				t.Fatalf("the run: %v, output %q; want it to run\n%s", err, res.Stdout, stderr.String())
			}
			said := strings.Contains(stderr.String(),
				"sabline: make the granted directory "+codes.TerminalSafe(out))
			if said == tt.wantMade {
				t.Errorf("standard error says it could not make %q: %v, want %v\n%s", out, said,
					!tt.wantMade, stderr.String())
			}
			if strings.ContainsAny(stderr.String(), "\x1b\r\u202e") ||
				strings.Contains(stderr.String(), "\nsabline: a line of its own") {
				t.Errorf("standard error holds the name's control characters raw: %q",
					stderr.String())
			}
			if _, err := os.Stat(out); (err == nil) != tt.wantMade {
				t.Errorf("%s: %v, want made: %v", out, err, tt.wantMade)
			}
			rec := res.Receipt
			if made := len(rec.Observed.Made) == 1 && rec.Observed.Made[0] == out; made != tt.wantMade {
				t.Errorf("the receipt's observed made %q, want %s made: %v", rec.Observed.Made, out,
					tt.wantMade)
			}
			if got := string(rec.RunParameters.Confinement); got != tt.wantLevel {
				t.Errorf("level %s (%s), want %s", got, rec.RunParameters.ConfinementReason, tt.wantLevel)
			}
		})
	}
}

// fsImmutable is FS_IMMUTABLE_FL of linux/fs.h, the attribute chattr +i
// sets.
const fsImmutable = 0x10

// makeImmutable sets dir's immutable attribute (no entry can be made in
// it, by root either) until the test ends, or skips the test where the
// file system or the user cannot.
func makeImmutable(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutable))
	}
	if err != nil {
		t.Skipf("skipped: %s cannot be made immutable here (%v): the test needs root and a file "+
			"system with the attribute (ext4, xfs, btrfs)", dir, err)
	}
	t.Cleanup(func() {
		g, err := os.Open(dir)
		if err == nil {
			err = unix.IoctlSetPointerInt(int(g.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
			g.Close()
		}
		if err != nil {
			t.Errorf("give %s back its attributes: %v", dir, err)
		}
	})
	if err := os.Mkdir(filepath.Join(dir, "probe"), 0o700); err == nil {
		t.Fatalf("%s is immutable, but an entry was made in it", dir)
	}
}
