//go:build unix

package journal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// limitedBlocks is the file size limit (ulimit -f, in the 512-byte blocks
// of a POSIX shell) of TestFileSizeLimit's child: 64 KiB, far below a
// segment's 64 MiB.
const limitedBlocks = 128

// TestFileSizeLimit: a journal whose process has a file size limit far
// below a segment's bound (a caller's ulimit -f, inherited by a server)
// goes on in a new segment when a record meets the limit, and keeps every
// record, each segment within the limit; in an Exclusive journal (a
// store's) with no damage, the cut record's fragment given back. Before,
// the record that met the limit failed, and so did every record after it
// for the life of the journal: a pool under ulimit -f 200 ran 71 runs,
// then refused each, E317. The control is the same child with no limit:
// every record in one segment. The limit is set by the shell that starts
// the child, never on this process.
func TestFileSizeLimit(t *testing.T) {
	const n = 200 // some 300 KB of records
	for _, exclusive := range []bool{true, false} {
		for _, limited := range []bool{true, false} {
			t.Run(fmt.Sprintf("exclusive=%v limited=%v", exclusive, limited), func(t *testing.T) {
				dir := t.TempDir()
				spec := fmt.Sprintf("limited %s %d", dir, n)
				if exclusive {
					spec += " exclusive"
				}
				script := `exec "$0"`
				if limited {
					script = fmt.Sprintf(`ulimit -f %d && exec "$0"`, limitedBlocks)
				}
				cmd := exec.Command("/bin/sh", "-c", script, os.Args[0])
				cmd.Env = append(os.Environ(), childEnv+"="+spec)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("the child: %v: %s", err, out)
				}
				got, rep := readAll(t, dir)
				if len(got) != n {
					t.Fatalf("read %d records, want %d", len(got), n)
				}
				for i, r := range got {
					if r.key != keyOf("k", i) || r.payload != string(payloadOf("k", i)) {
						t.Fatalf("record %d is %q, want %s whole", i, r.key, keyOf("k", i))
					}
				}
				if exclusive && rep.Damaged != 0 {
					t.Errorf("damage: %v", rep.Damage)
				}
				segs, _ := filepath.Glob(filepath.Join(dir, "*"+segmentExt))
				if (len(segs) > 1) != limited {
					t.Errorf("%d segments; want more than one only under the limit", len(segs))
				}
				for _, seg := range segs {
					if !limited {
						break
					}
					if fi, err := os.Stat(seg); err != nil || fi.Size() > limitedBlocks*512 {
						t.Errorf("%s: %v, past the limit of %d bytes", seg, err, limitedBlocks*512)
					}
				}
			})
		}
	}
}

// TestRecordPastFileSizeLimit: a record longer than the process's file
// size limit (a caller's ulimit -f of 1 KiB) fits in no segment: its
// append's error is the limit's (EFBIG), which a store says as such
// (raise the limit), not a short write, which it says as a full file
// system (free room there, on a file system with room), and no new
// segment is made for it, whose file would be one more at each record
// refused. The control: records within the limit are appended, under the
// same limit.
func TestRecordPastFileSizeLimit(t *testing.T) {
	const blocks = 2 // 1 KiB
	for _, exclusive := range []string{"", " exclusive"} {
		for _, size := range []int{256, 4 << 10} {
			t.Run(fmt.Sprintf("size=%d%s", size, exclusive), func(t *testing.T) {
				dir := t.TempDir()
				cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf(`ulimit -f %d && exec "$0"`, blocks),
					os.Args[0])
				cmd.Env = append(os.Environ(),
					fmt.Sprintf("%s=oversize %s %d%s", childEnv, dir, size, exclusive))
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("the child: %v: %s", err, out)
				}
				want := "efbig=false <nil>"
				if size > blocks*512 {
					want = "efbig=true "
				}
				lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
				for _, l := range lines {
					if !strings.HasPrefix(l, want) {
						t.Errorf("a record of %d bytes under a limit of %d: %s; want %q", size,
							blocks*512, l, want)
					}
				}
				if len(lines) != 3 {
					t.Errorf("the child said %q; want a line for each of 3 records", out)
				}
				if segs, _ := filepath.Glob(filepath.Join(dir, "*"+segmentExt)); len(segs) != 1 {
					t.Errorf("%d segments, want 1: %v", len(segs), segs)
				}
			})
		}
	}
}
