package worker

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/internal/testkit"
	"github.com/sabline/sabline/internal/wire"
)

// TestWorkerAppliesOnlyTheSentPolicy: a worker sent no policy, or one whose
// digest is not the one the receipt records, applies nothing and says so;
// it never derives a policy of its own.
func TestWorkerAppliesOnlyTheSentPolicy(t *testing.T) {
	p := core.OSPolicy(budget.MustParse("/", "io"), core.Options{})
	for _, tt := range []struct {
		name string
		req  wire.Request
	}{
		{name: "no policy", req: wire.Request{Confine: core.ModeDefault, PolicySHA256: p.SHA256()}},
		{name: "another digest", req: wire.Request{Confine: core.ModeDefault, Policy: &p, PolicySHA256: strings.Repeat("0", 64)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := (&worker{}).confine(&tt.req)
			if got.Level != core.None || len(got.Layers) != 0 || !strings.Contains(got.Reason, "was not sent the policy") {
				t.Errorf("confinement %+v, want none, no layers, saying the policy was not sent", got)
			}
		})
	}
}

// TestClearTemp: between two pooled runs the worker's temporary directory
// is emptied, the crash file too: what one run wrote there (the crash
// file was left as it was, and one client read what another wrote in it),
// a dot-file and a dot-directory among it, the next never sees. The crash file stays the worker's standard error,
// open to append, so what is written next starts at its beginning.
func TestClearTemp(t *testing.T) {
	dir := testkit.Scratch(t)
	crash, err := os.OpenFile(filepath.Join(dir, wire.CrashFile), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer crash.Close()
	if _, err := crash.WriteString("the first run's secret\n"); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "left", "by", "it.txt"), "x")
	testkit.WriteFile(t, filepath.Join(dir, "also.txt"), "x")
	testkit.WriteFile(t, filepath.Join(dir, ".hidden"), "x")
	testkit.WriteFile(t, filepath.Join(dir, ".config", "left.txt"), "x")
	(&tempDir{name: dir}).clear(crash)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != wire.CrashFile {
		t.Fatalf("left %v, want the crash file alone", entries)
	}
	if _, err := crash.WriteString("next\n"); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, wire.CrashFile)); err != nil || string(got) != "next\n" {
		t.Fatalf("the crash file holds %q (%v), want only what was written after it was emptied", got, err)
	}
}

// TestClearTempLeavesAnEmptyCrashFile: the crash file is cut only when it
// holds something. Seen from outside, by its modification time: an empty
// one keeps the time it was given (it was not written), and the same file
// holding a line is emptied and given a new one.
func TestClearTempLeavesAnEmptyCrashFile(t *testing.T) {
	dir := testkit.Scratch(t)
	name := filepath.Join(dir, wire.CrashFile)
	crash, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer crash.Close()
	past := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, tt := range []struct {
		name      string
		holds     string
		wantMoved bool
	}{
		{name: "empty", holds: "", wantMoved: false},
		{name: "holding a line", holds: "a report\n", wantMoved: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := crash.WriteString(tt.holds); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(name, past, past); err != nil {
				t.Fatal(err)
			}
			(&tempDir{name: dir}).clear(crash)
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() != 0 {
				t.Errorf("the crash file holds %d bytes after the emptying, want none", fi.Size())
			}
			if moved := !fi.ModTime().Equal(past); moved != tt.wantMoved {
				t.Errorf("modification time %v (given %v): written %v, want %v",
					fi.ModTime(), past, moved, tt.wantMoved)
			}
		})
	}
}

// TestClearTempHeldOpen empties the same directory again and again, as a
// pool worker does between runs: from the second emptying on through the
// directory it held open, read again from its start (what was made since
// is removed, which a listing that went on from where the last ended would
// not find), and, once that descriptor can no longer be read from its
// start (a pipe in its place) or read at all (its directory removed and
// another made under its name), through the directory opened again by
// name.
func TestClearTempHeldOpen(t *testing.T) {
	dir := testkit.Scratch(t)
	temp := &tempDir{name: dir}
	for _, tt := range []struct {
		name     string
		before   func(t *testing.T)
		wantHeld bool // the emptying went through the descriptor held before it
	}{
		{name: "the first", wantHeld: false},
		{name: "the second", wantHeld: true},
		{name: "the third", wantHeld: true},
		{name: "a descriptor that cannot be read from its start", before: func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			temp.f.Close()
			temp.f = r
		}, wantHeld: false},
		{name: "after it", wantHeld: true},
		{name: "the directory removed and made again", before: func(t *testing.T) {
			if err := os.Remove(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
		}, wantHeld: false},
		{name: "after that", wantHeld: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.before != nil {
				tt.before(t)
			}
			held := temp.f
			testkit.WriteFile(t, filepath.Join(dir, "made", "by", tt.name+".txt"), "x")
			testkit.WriteFile(t, filepath.Join(dir, tt.name+".txt"), "x")
			temp.clear(nil)
			if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
				t.Errorf("left %v (%v), want nothing", entries, err)
			}
			if temp.f == nil {
				t.Fatal("the directory is not held open after the emptying")
			}
			if sameHeld := held != nil && temp.f == held; sameHeld != tt.wantHeld {
				t.Errorf("emptied through the descriptor held before: %v, want %v", sameHeld, tt.wantHeld)
			}
		})
	}
	temp.close()
}

// TestClearTempThroughTheHeldDirectory: what the emptying finds in the
// directory it holds, it removes there, whatever is under the directory's
// name by then. The held directory is moved away and another made under
// its name, each holding a file of the same name, and the new one a file
// of its own: the emptying leaves the moved directory empty (the
// control: it did remove what it listed) and the new one as it was (it
// removed nothing by name).
func TestClearTempThroughTheHeldDirectory(t *testing.T) {
	parent := testkit.Scratch(t)
	dir, moved := filepath.Join(parent, "temp"), filepath.Join(parent, "moved")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	temp := &tempDir{name: dir}
	defer temp.close()
	temp.clear(nil) // held from here on
	if temp.f == nil {
		t.Fatal("the directory is not held open after the emptying")
	}
	testkit.WriteFile(t, filepath.Join(dir, "same.txt"), "the run's")
	testkit.WriteFile(t, filepath.Join(dir, "made", "by", "it.txt"), "the run's")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "same.txt"), "another's")
	testkit.WriteFile(t, filepath.Join(dir, "made"), "another's")
	testkit.WriteFile(t, filepath.Join(dir, "keep.txt"), "another's")
	temp.clear(nil)
	if entries, err := os.ReadDir(moved); err != nil || len(entries) != 0 {
		t.Errorf("the held directory holds %v (%v) after the emptying, want nothing", entries, err)
	}
	for _, name := range []string{"same.txt", "made", "keep.txt"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != "another's" {
			t.Errorf("%s under the name holds %q (%v), want it as it was", name, got, err)
		}
	}
}
