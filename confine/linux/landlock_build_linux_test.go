package linux

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// TestBuildLandlock reads a ruleset as it would be installed, without
// installing it: each grant resolved to the entry its path names (its
// device and inode, as stat says) with the rights that entry carries (a file only a file's), a grant whose path is
// gone withheld, where libpsx lists the threads a rule to read their
// directory, and the handled rights and ports as the plan says.
func TestBuildLandlock(t *testing.T) {
	base := t.TempDir()
	dir, file := filepath.Join(base, "dir"), filepath.Join(base, "file")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rights := landlockReadRights | LandlockFSMakeReg | LandlockFSWriteFile
	plan := LandlockRuleset{
		ABI: 4, HandledFS: landlockFSRights(4), HandledNet: LandlockNetBindTCP | LandlockNetConnectTCP,
		ConnectTCP: []int{53, 443},
		Rules: []LandlockRule{
			{Path: dir, Access: rights, Grant: true, Why: "a directory"},
			{Path: file, Access: rights, Grant: true, Why: "a file"},
			{Path: filepath.Join(base, "gone"), Access: rights, Grant: true, Why: "a grant gone"},
		},
	}
	task := "/proc/" + strconv.Itoa(os.Getpid()) + "/task"
	b, err := buildLandlock(plan)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range b.rules {
		paths = append(paths, r.rule.Path)
		want, wantDir := rights, true
		switch r.rule.Path {
		case file:
			want, wantDir = rights&landlockFileRights, false
		case task:
			want = LandlockFSReadDir
		}
		if r.access != want || r.entry.dir() != wantDir {
			t.Errorf("%s: rights %v, directory %v; want %v, %v", r.rule.Path,
				LandlockAccessNames(r.access), r.entry.dir(), LandlockAccessNames(want), wantDir)
		}
		if r.entry.onProc != (r.rule.Path == task) {
			t.Errorf("%s: on procfs %v, want %v", r.rule.Path, r.entry.onProc, r.rule.Path == task)
		}
		if r.entry.onProc {
			continue // procfs may number it anew: the install checks its type and file system
		}
		var st syscall.Stat_t
		if err := syscall.Stat(r.rule.Path, &st); err != nil {
			t.Fatal(err)
		}
		if r.entry.id != (fileID{dev: uint64(st.Dev), ino: st.Ino}) {
			t.Errorf("%s: built on %+v, stat says device %d inode %d", r.rule.Path, r.entry.id, st.Dev, st.Ino)
		}
	}
	want := []string{dir, file}
	if psxListsTasks { // libpsx lists the threads: their directory has a rule
		want = append(want, task)
	}
	if !slices.Equal(paths, want) {
		t.Errorf("rules on %q, want %q", paths, want)
	}
	if want := []string{filepath.Join(base, "gone")}; !slices.Equal(b.withheld, want) {
		t.Errorf("withheld %q, want %q", b.withheld, want)
	}
	if b.attr.HandledAccessFS != plan.HandledFS || b.attr.HandledAccessNet != plan.HandledNet ||
		!slices.Equal(b.ports, plan.ConnectTCP) {
		t.Errorf("build handles %#x, %#x, ports %v; the plan %#x, %#x, %v", b.attr.HandledAccessFS,
			b.attr.HandledAccessNet, b.ports, plan.HandledFS, plan.HandledNet, plan.ConnectTCP)
	}
}
