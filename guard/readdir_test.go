package guard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// namesAndTypes is a directory's entries as "name type", sorted.
func namesAndTypes(entries []fs.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name()+" "+e.Type().String())
	}
	slices.Sort(out)
	return out
}

// TestReadDir: ReadDir lists what os.ReadDir lists, each entry with the
// same type (a file, a directory, a link to each, a link to nothing),
// through a link to the directory too; a path that is not a directory
// (a file, a link to one) lists nothing and says so.
func TestReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", ".dot"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, to := range map[string]string{"to-sub": "sub", "to-file": "file", "to-nothing": "gone"} {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	outside := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, outside); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{dir, outside} {
		got, err := ReadDir(at)
		if err != nil || !slices.Equal(namesAndTypes(got), namesAndTypes(want)) {
			t.Errorf("ReadDir(%s) = %q, %v; want %q", at, namesAndTypes(got), err, namesAndTypes(want))
		}
	}
	for _, at := range []string{filepath.Join(dir, "file"), filepath.Join(dir, "to-file"),
		filepath.Join(dir, "to-nothing")} {
		if got, err := ReadDir(at); err == nil || len(got) != 0 {
			t.Errorf("ReadDir(%s) = %q, %v; want nothing, and an error", at, namesAndTypes(got), err)
		}
	}
	if _, err := ReadDir(filepath.Join(dir, "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir of nothing: %v, want ErrNotExist", err)
	}
	entries, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err != nil || info.Mode().Type() != e.Type() {
			t.Errorf("%s: Info %v, %v; want its type %s", e.Name(), info, err, e.Type())
		}
	}
}
