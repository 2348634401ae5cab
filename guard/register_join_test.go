package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadEmptyRegister: a register that is there and trusted, and holds
// no entry yet (or only one being written), holds nothing to guard, and
// is no error: the register's own directory is still guarded.
func TestReadEmptyRegister(t *testing.T) {
	unixOnly(t)
	tests := []struct {
		name  string
		files []string // the register's files
	}{
		{name: "no entry"},
		{name: "only an entry being written", files: []string{".tmp-0123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := useRegister(t, t.TempDir())
			mkSticky(t, reg)
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(reg, f), []byte("/nowhere"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadRegister(reg)
			if err != nil || len(got.Paths) != 0 || len(got.Refused) != 0 || got.Unread != 0 {
				t.Errorf("ReadRegister = %+v, %v; want nothing, and no error", got, err)
			}
			locs, _, err := RegisteredLocations()
			if err != nil || !slices.Equal(locs, []string{reg}) {
				t.Errorf("RegisteredLocations = %q, %v; want the register alone", locs, err)
			}
		})
	}
}

// TestJoinRepairsOurEntry: an entry of ours under the path's name that
// does not hold the path (cut short by a crash, say) is replaced by one
// that does, and the path is guarded.
func TestJoinRepairsOurEntry(t *testing.T) {
	unixOnly(t)
	tests := []struct {
		name string
		data string // what our entry holds before the join
	}{
		{name: "cut short", data: "/"},
		{name: "empty"},
		{name: "another path", data: "/elsewhere\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			mkSticky(t, reg)
			store := filepath.Join(dir, "receipts")
			if err := os.Mkdir(store, 0o700); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(reg, entryName(store))
			if err := os.WriteFile(name, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := Join(store); err != nil {
				t.Fatal(err)
			}
			if data, err := os.ReadFile(name); err != nil || string(data) != store+"\n" {
				t.Errorf("our entry holds %q (%v) after the join, want %q", data, err, store+"\n")
			}
			if got, err := ReadRegister(reg); err != nil || !slices.Equal(got.Paths, []string{store}) {
				t.Errorf("ReadRegister = %+v, %v; want %s guarded", got, err, store)
			}
		})
	}
}

// TestJoinLeavesAnotherUsersFile: another user's file under the name our
// entry would take, even one naming our path, is neither taken for our
// entry nor replaced: we join under the name and a suffix, our path is
// guarded, and their file is as it was. Run as root (chown).
func TestJoinLeavesAnotherUsersFile(t *testing.T) {
	unixOnly(t)
	if os.Geteuid() != 0 {
		t.Skip("writing a file as another user takes root (chown)")
	}
	const them = 4242
	tests := []struct {
		name string
		data func(ours string) string // what their file holds
	}{
		{name: "their entry naming our path", data: func(ours string) string { return ours + "\n" }},
		{name: "their file of something else", data: func(string) string { return "squatted\n" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			reg := useRegister(t, dir)
			mkSticky(t, reg)
			ours := filepath.Join(dir, "ours")
			if err := os.Mkdir(ours, 0o700); err != nil {
				t.Fatal(err)
			}
			theirs := filepath.Join(reg, entryName(ours))
			want := tt.data(ours)
			if err := os.WriteFile(theirs, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(theirs, them, them); err != nil {
				t.Fatal(err)
			}
			if err := Join(ours); err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(theirs)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(theirs)
			if owner := fileOwner(fi); owner != them || string(data) != want {
				t.Errorf("their file is now uid %d's holding %q, want uid %d's holding %q",
					owner, data, them, want)
			}
			names, _ := filepath.Glob(filepath.Join(reg, "*"))
			suffixed := slices.ContainsFunc(names, func(n string) bool {
				return strings.HasPrefix(filepath.Base(n), entryName(ours)+"-")
			})
			if !suffixed {
				t.Errorf("no entry of ours under a suffix: %q", names)
			}
			if got, err := ReadRegister(reg); err != nil || !slices.Contains(got.Paths, ours) {
				t.Errorf("ReadRegister = %+v, %v; want %s guarded", got, err, ours)
			}
		})
	}
}
