package confine

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sabline/sabline/confine/core"

	"github.com/sabline/sabline/budget"
)

// dirInfo is a stat answer for a directory, or a file when !dir.
type dirInfo struct{ dir bool }

func (d dirInfo) Name() string       { return "x" }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return map[bool]fs.FileMode{true: fs.ModeDir}[d.dir] }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return d.dir }
func (d dirInfo) Sys() any           { return nil }

// TestToMake: a write grant that does not exist beneath a directory is
// made; one that exists, one that is a dangling link (which mkdir would
// not follow), one beneath a missing or non-directory parent, a read
// grant and a grant of every path are not.
func TestToMake(t *testing.T) {
	machine := map[string]dirInfo{
		"/w": {dir: true}, "/w/have": {dir: true}, "/w/file": {dir: false},
	}
	stat := func(p string) (fs.FileInfo, error) {
		if fi, ok := machine[p]; ok {
			return fi, nil
		}
		return nil, fs.ErrNotExist
	}
	lstat := func(p string) (fs.FileInfo, error) {
		if p == "/w/dangling" { // a link to /w/gone, which stat does not find
			return dirInfo{dir: false}, nil
		}
		return stat(p)
	}
	tests := []struct {
		name  string
		allow string
		want  []string
	}{
		{name: "missing beneath a directory", allow: "fs:write:/w/new", want: []string{"/w/new"}},
		{name: "exists", allow: "fs:write:/w/have"},
		{name: "parent missing", allow: "fs:write:/w/gone/new"},
		{name: "parent a file", allow: "fs:write:/w/file/new"},
		{name: "a read grant", allow: "fs:read:/w/new"},
		{name: "every path", allow: "fs:write"},
		{name: "two, one made", allow: "fs:write:/w/new,fs:write:/w/have", want: []string{"/w/new"}},
		{name: "a dangling link", allow: "fs:write:/w/dangling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := core.OSPolicy(budget.MustParse("/", tt.allow), core.Options{})
			if got := toMake(p, lstat, stat); !slices.Equal(got, tt.want) {
				t.Errorf("toMake(%s) = %q, want %q", tt.allow, got, tt.want)
			}
		})
	}
}

// TestMakeGranted: the directory is made on the disk and returned; the
// control, a grant that exists, is left as it was and not returned; a
// grant whose parent is missing makes nothing, the parent included.
func TestMakeGranted(t *testing.T) {
	dir := t.TempDir()
	have := filepath.Join(dir, "have")
	if err := os.Mkdir(have, 0o700); err != nil {
		t.Fatal(err)
	}
	newDir, deep := filepath.Join(dir, "new"), filepath.Join(dir, "gone", "new")
	b := budget.MustParse(dir, "fs:write:new,fs:write:have,fs:write:gone/new")
	made, err := MakeGranted(core.OSPolicy(b, core.Options{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(made, []string{newDir}) {
		t.Errorf("made %q, want %q", made, []string{newDir})
	}
	if fi, err := os.Lstat(newDir); err != nil || !fi.IsDir() {
		t.Errorf("%s after MakeGranted: %v, want a directory", newDir, err)
	}
	if _, err := os.Lstat(filepath.Dir(deep)); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it not made", filepath.Dir(deep), err)
	}
	if fi, err := os.Lstat(have); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s changed: %v %v", have, fi.Mode(), err)
	}
}
