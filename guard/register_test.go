package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
)

// entry is a register entry naming p, owned by uid, named for it.
func entry(p string, uid int) registerEntry {
	return registerEntry{Name: entryName(p), Mode: 0o644, Owner: uid, Data: []byte(p + "\n")}
}

// reader is the uid reading the tables' entries: none of them is its
// own.
const reader = 5005

// fakeOwners is a machine whose paths are owned as the map says; a path
// not in it does not exist.
func fakeOwners(m map[string][]int) pathOwners {
	return func(p string) ([]int, bool) {
		uids, ok := m[p]
		return uids, ok
	}
}

// TestParseRegister: each entry is honoured, passed over with why, or
// counted as naming a missing path, as the rules say; an honoured path is
// listed once.
func TestParseRegister(t *testing.T) {
	owners := fakeOwners(map[string][]int{
		"/srv/a/receipts": {1000}, "/srv/b/token": {1001}, "/srv/root": {0}, "/srv/link": {1000, 1001},
		"/srv/a/runs": {1000},
	})
	big := "/" + strings.Repeat("x", MaxRegisterEntryBytes)
	tests := []struct {
		name        string
		entries     []registerEntry
		wantPaths   []string
		wantRefused []string // each refused entry's why, in part
		wantMissing int
	}{
		{name: "an entry of the path's owner", entries: []registerEntry{entry("/srv/a/receipts", 1000)},
			wantPaths: []string{"/srv/a/receipts"}},
		{name: "root's entry names anything", entries: []registerEntry{entry("/srv/b/token", 0)},
			wantPaths: []string{"/srv/b/token"}},
		{name: "another user's path", entries: []registerEntry{entry("/srv/b/token", 1000)},
			wantRefused: []string{"owned by uid 1001, not by the entry's owner (uid 1000)"}},
		{name: "a root-owned path, named by a user", entries: []registerEntry{entry("/srv/root", 1000)},
			wantRefused: []string{"owned by uid 0"}},
		{name: "a root-owned path, named by the reader", entries: []registerEntry{entry("/srv/root", reader)},
			wantPaths: []string{"/srv/root"}},
		{name: "another user's path, named by the reader", entries: []registerEntry{entry("/srv/b/token", reader)},
			wantPaths: []string{"/srv/b/token"}},
		{name: "a link to another user's file", entries: []registerEntry{entry("/srv/link", 1000)},
			wantRefused: []string{"owned by uid 1001"}},
		{name: "owners not compared (Windows)", entries: []registerEntry{entry("/srv/b/token", -1)},
			wantPaths: []string{"/srv/b/token"}},
		{name: "a missing path is counted, not guarded", entries: []registerEntry{entry("/srv/gone", 1000)},
			wantMissing: 1},
		{name: "twice, listed once", entries: []registerEntry{entry("/srv/a/runs", 1000),
			{Name: entryName("/srv/a/runs") + "-0a1b", Mode: 0o644, Owner: 1000, Data: []byte("/srv/a/runs\n")}},
			wantPaths: []string{"/srv/a/runs"}},
		{name: "an entry being written is skipped", entries: []registerEntry{{Name: ".tmp-00", Mode: 0o644, Owner: 1000, Data: []byte("junk")}}},
		{name: "not a regular file", entries: []registerEntry{{Name: entryName("/srv/a/runs"), Mode: fs.ModeSymlink | 0o777, Owner: 1000}},
			wantRefused: []string{"not a regular file"}},
		{name: "too large", entries: []registerEntry{{Name: entryName(big), Mode: 0o644, Owner: 1000, Data: []byte(big + "\n")}},
			wantRefused: []string{"larger than 4096 bytes"}},
		{name: "no newline", entries: []registerEntry{{Name: entryName("/srv/a/runs"), Mode: 0o644, Owner: 1000, Data: []byte("/srv/a/runs")}},
			wantRefused: []string{"does not end with a newline"}},
		{name: "empty", entries: []registerEntry{{Name: entryName(""), Mode: 0o644, Owner: 1000, Data: []byte("\n")}},
			wantRefused: []string{"names no path"}},
		{name: "two lines", entries: []registerEntry{{Name: entryName("/srv/a/runs\n/srv/b/token"), Mode: 0o644, Owner: 1000,
			Data: []byte("/srv/a/runs\n/srv/b/token\n")}}, wantRefused: []string{"newline or a NUL"}},
		{name: "a NUL", entries: []registerEntry{{Name: entryName("/srv/a\x00"), Mode: 0o644, Owner: 1000, Data: []byte("/srv/a\x00\n")}},
			wantRefused: []string{"newline or a NUL"}},
		{name: "relative", entries: []registerEntry{{Name: entryName("srv/a/runs"), Mode: 0o644, Owner: 1000, Data: []byte("srv/a/runs\n")}},
			wantRefused: []string{"not absolute and clean"}},
		{name: "not clean", entries: []registerEntry{{Name: entryName("/srv/a/../b/token"), Mode: 0o644, Owner: 1000, Data: []byte("/srv/a/../b/token\n")}},
			wantRefused: []string{"not absolute and clean"}},
		{name: "named for another path", entries: []registerEntry{{Name: entryName("/srv/other"), Mode: 0o644, Owner: 1000, Data: []byte("/srv/a/runs\n")}},
			wantRefused: []string{"not the digest"}},
		{name: "a suffix that is not hexadecimal", entries: []registerEntry{{Name: entryName("/srv/a/runs") + "-zz", Mode: 0o644, Owner: 1000, Data: []byte("/srv/a/runs\n")}},
			wantRefused: []string{"not the digest"}},
	}
	if goruntime.GOOS == "windows" {
		t.Skip("the table's paths are Unix paths")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseRegister(tt.entries, owners, reader)
			if !slices.Equal(got.Paths, tt.wantPaths) {
				t.Errorf("paths %q, want %q", got.Paths, tt.wantPaths)
			}
			if len(got.Refused) != len(tt.wantRefused) {
				t.Fatalf("refused %+v, want %d: %q", got.Refused, len(tt.wantRefused), tt.wantRefused)
			}
			for i, why := range tt.wantRefused {
				if !strings.Contains(got.Refused[i].Why, why) {
					t.Errorf("refused because %q, want %q", got.Refused[i].Why, why)
				}
			}
			if got.Missing != tt.wantMissing {
				t.Errorf("missing %d, want %d", got.Missing, tt.wantMissing)
			}
		})
	}
}

// TestParseRegisterBound: past MaxRegisterEntries the entries are counted
// as unread and not guarded, and the warning says so; the first ones are
// guarded. Entries being written do not count.
func TestParseRegisterBound(t *testing.T) {
	paths := map[string][]int{}
	var entries []registerEntry
	for i := range MaxRegisterEntries + 5 {
		p := fmt.Sprintf("/srv/p%05d", i)
		paths[p] = []int{1000}
		entries = append(entries, entry(p, 1000), registerEntry{Name: ".tmp-" + fmt.Sprint(i), Mode: 0o644})
	}
	got := parseRegister(entries, fakeOwners(paths), reader)
	if len(got.Paths) != MaxRegisterEntries || got.Unread != 5 {
		t.Fatalf("%d paths, %d unread; want %d and 5", len(got.Paths), got.Unread, MaxRegisterEntries)
	}
	if got.Paths[0] != "/srv/p00000" || slices.Contains(got.Paths, fmt.Sprintf("/srv/p%05d", MaxRegisterEntries)) {
		t.Errorf("guarded %s ... %s: want the first %d", got.Paths[0], got.Paths[len(got.Paths)-1], MaxRegisterEntries)
	}
	got.Dir = "/reg"
	if w := got.Warning(); !strings.Contains(w, "more than 4096 entries; 5 were not read") {
		t.Errorf("warning %q", w)
	}
	// Control: at the bound, nothing is left unread and nothing is said.
	if got := parseRegister(entries[:2*MaxRegisterEntries], fakeOwners(paths), reader); got.Unread != 0 || got.Warning() != "" {
		t.Errorf("at the bound: %d unread, warning %q", got.Unread, got.Warning())
	}
}

// unixOnly skips a test of the register on a real directory where its
// owners are not compared.
func unixOnly(t *testing.T) {
	t.Helper()
	if goruntime.GOOS == "windows" {
		t.Skip("on Windows the register's owners are not compared, nor is it sticky")
	}
}

// ownSub is this user's subdirectory of the register reg, where its
// Join writes.
func ownSub(reg string) string { return filepath.Join(reg, subdirName(currentUser())) }

// entriesOf is what os.ReadDir lists of dir, but the holds (heldName).
func entriesOf(dir string) []os.DirEntry {
	names, _ := os.ReadDir(dir)
	return slices.DeleteFunc(names, func(e os.DirEntry) bool { return e.Name() == heldName })
}

// useRegister points RegisterEnv at dir/guarded for the test.
func useRegister(t *testing.T, dir string) string {
	t.Helper()
	reg := filepath.Join(dir, "guarded")
	t.Setenv(RegisterEnv, reg)
	return reg
}

// TestJoinAndRead: Join makes the register sticky and open to all, and
// this user's subdirectory of it (0755, this user's), and writes there
// one entry per path that reads back; joining again changes nothing; a
// path that does not exist is not written; ReadRegister guards what was
// joined.
func TestJoinAndRead(t *testing.T) {
	unixOnly(t)
	dir := t.TempDir()
	reg := useRegister(t, dir)
	store := filepath.Join(dir, "receipts")
	if err := os.Mkdir(store, 0o700); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(dir, "gone")
	if err := Join(store, gone); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(reg)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("register mode %s, want sticky and 0777", fi.Mode())
	}
	sub, err := os.Lstat(ownSub(reg))
	if err != nil || !sub.IsDir() || sub.Mode().Perm() != 0o755 || fileOwner(sub) != currentUser() {
		t.Fatalf("our subdirectory %s: %v (%v), want a directory of ours, 0755", ownSub(reg), sub, err)
	}
	data, err := os.ReadFile(filepath.Join(ownSub(reg), entryName(store)))
	if err != nil || string(data) != store+"\n" {
		t.Fatalf("entry %q (%v), want %q", data, err, store+"\n")
	}
	if err := Join(store); err != nil {
		t.Fatal(err)
	}
	tops, _ := os.ReadDir(reg)
	names := entriesOf(ownSub(reg))
	if len(tops) != 1 || len(names) != 1 {
		t.Errorf("%d entries (of %d names at the top) after joining twice and a missing path, want 1: %v",
			len(names), len(tops), names)
	}
	got, err := ReadRegister(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Paths, []string{store}) {
		t.Errorf("read %q, want %q", got.Paths, store)
	}
	// The path removed, the entry stays and is passed over.
	if err := os.Remove(store); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadRegister(reg); err != nil || len(got.Paths) != 0 || got.Missing != 1 {
		t.Errorf("after the store is removed: %+v (%v), want nothing guarded and 1 missing", got, err)
	}
	// A register that does not exist holds nothing, and is no error.
	if got, err := ReadRegister(filepath.Join(dir, "none")); err != nil || len(got.Paths) != 0 {
		t.Errorf("no register: %+v (%v)", got, err)
	}
}

// TestUntrustedRegister: a register that is a link, not sticky, not a
// directory or owned by another user is refused, to join and to read,
// naming it and what to do; its control, a sticky directory of ours, is
// used.
func TestUntrustedRegister(t *testing.T) {
	unixOnly(t)
	tests := []struct {
		name     string
		make     func(t *testing.T, reg string)
		wantWhy  string
		rootOnly bool
	}{
		{name: "a link", wantWhy: "is a link", make: func(t *testing.T, reg string) {
			good := reg + "-target"
			mkSticky(t, good)
			if err := os.Symlink(good, reg); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "not sticky", wantWhy: "is not sticky", make: func(t *testing.T, reg string) {
			if err := os.Mkdir(reg, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(reg, 0o777); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a file", wantWhy: "is not a directory", make: func(t *testing.T, reg string) {
			if err := os.WriteFile(reg, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another user's", wantWhy: "owned by uid 12345, neither root nor you", rootOnly: true, make: func(t *testing.T, reg string) {
			mkSticky(t, reg)
			if err := os.Chown(reg, 12345, 12345); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "control: sticky and ours", make: mkSticky},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && os.Geteuid() != 0 {
				t.Skip("giving the register to another user takes root")
			}
			dir := t.TempDir()
			reg := useRegister(t, dir)
			tt.make(t, reg)
			store := filepath.Join(dir, "receipts")
			if err := os.Mkdir(store, 0o700); err != nil {
				t.Fatal(err)
			}
			joinErr := Join(store)
			_, readErr := ReadRegister(reg)
			if tt.wantWhy == "" {
				if joinErr != nil || readErr != nil {
					t.Fatalf("join: %v; read: %v; want both to work", joinErr, readErr)
				}
				return
			}
			for what, err := range map[string]error{"join": joinErr, "read": readErr} {
				if !errors.Is(err, errUntrustedRegister) || !strings.Contains(err.Error(), reg) ||
					!strings.Contains(err.Error(), tt.wantWhy) || !strings.Contains(err.Error(), "install -d -m 1777") {
					t.Errorf("%s: %v; want it untrusted, naming %s, %q and what to do", what, err, reg, tt.wantWhy)
				}
			}
			for _, at := range []string{filepath.Join(reg, entryName(store)),
				filepath.Join(ownSub(reg), entryName(store))} {
				if _, err := os.Lstat(at); err == nil {
					t.Errorf("an entry was written in an untrusted register: %s", at)
				}
			}
		})
	}
}

// mkSticky makes dir a register: sticky and open to all.
func mkSticky(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
}

// TestRegisterOwners: on a real register, an entry another user wrote
// naming our path is passed over, one naming its own path is honoured;
// another user's file squatting our entry's name at the register's top
// does not keep our path out. Run as root (chown).
func TestRegisterOwners(t *testing.T) {
	unixOnly(t)
	if os.Geteuid() != 0 {
		t.Skip("writing entries as another user takes root (chown)")
	}
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	ours := filepath.Join(dir, "ours")
	theirs := filepath.Join(dir, "theirs")
	for _, p := range []string{ours, theirs} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(theirs, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	plant := func(name, content string, uid int) {
		t.Helper()
		p := filepath.Join(reg, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	// uid 4242 registers our path (refused) and its own (honoured), and
	// squats the name our entry would take.
	plant(entryName(ours)+"-01", ours+"\n", 4242)
	plant(entryName(theirs), theirs+"\n", 4242)
	plant(entryName(ours), "squatted\n", 4242)
	got, err := ReadRegister(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Paths, []string{theirs}) {
		t.Errorf("guarded %q, want only %s (uid 4242's own path)", got.Paths, theirs)
	}
	if len(got.Refused) != 2 {
		t.Errorf("refused %+v, want uid 4242's entry for our path and the squatted name", got.Refused)
	}
	// We join despite the squatter: in our subdirectory.
	if err := Join(ours); err != nil {
		t.Fatal(err)
	}
	got, err = ReadRegister(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Paths, ours) {
		t.Errorf("after joining, guarded %q, want %s among them", got.Paths, ours)
	}
	// Joining again finds our entry and writes no other.
	before := entriesOf(ownSub(reg))
	if err := Join(ours); err != nil {
		t.Fatal(err)
	}
	if after := entriesOf(ownSub(reg)); len(after) != len(before) || len(after) != 1 {
		t.Errorf("joining again made %d entries more (%d)", len(after)-len(before), len(after))
	}
}

// TestRegisterOursFirst: a register filled past its bound by another
// user still has our entries read (in our subdirectory, apart), and of
// theirs the first by name. Run as root (chown).
func TestRegisterOursFirst(t *testing.T) {
	unixOnly(t)
	if os.Geteuid() != 0 {
		t.Skip("writing entries as another user takes root (chown)")
	}
	if testing.Short() {
		t.Skip("writes 4,100 entries")
	}
	dir := t.TempDir()
	reg := useRegister(t, dir)
	mkSticky(t, reg)
	for i := range MaxRegisterEntries + 4 {
		p := filepath.Join(reg, fmt.Sprintf("%032x", i)) // sorts before any of ours, wrongly named
		if err := os.WriteFile(p, []byte("/nowhere\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, 4242, 4242); err != nil {
			t.Fatal(err)
		}
	}
	ours := filepath.Join(dir, "ours")
	if err := os.Mkdir(ours, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Join(ours); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRegister(reg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Paths, []string{ours}) || got.Unread != 4 {
		t.Errorf("guarded %q, %d unread; want %s and 4 of uid 4242's unread", got.Paths, got.Unread, ours)
	}
	// Of theirs, the first by name are read (and refused, wrongly named),
	// the last left unread: the same entries on every read.
	var read []string
	for _, r := range got.Refused {
		read = append(read, r.Name)
	}
	if n := len(read); n != MaxRegisterEntries || !slices.IsSorted(read) ||
		read[0] != fmt.Sprintf("%032x", 0) || read[n-1] != fmt.Sprintf("%032x", n-1) {
		t.Errorf("read %d of uid 4242's entries, %q ... %q; want the first %d by name",
			len(read), read[:min(len(read), 1)], read[max(len(read)-1, 0):], MaxRegisterEntries)
	}
}
