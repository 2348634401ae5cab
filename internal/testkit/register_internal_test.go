package testkit

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/sabline/sabline/guard"
)

// TestInherited: a test binary started by one that runs apart runs its
// tests in its parent's directory only when its whole environment points
// there, and that directory is one RunApart made: every other case makes
// a directory of its own.
func TestInherited(t *testing.T) {
	tests := []struct {
		name string
		edit func(t *testing.T, dir string) // changes the parent's environment
		want bool
	}{
		{name: "the parent's environment", edit: func(*testing.T, string) {}, want: true},
		{name: "no directory named", want: false,
			edit: func(t *testing.T, _ string) { t.Setenv(apartDirEnv, "") }},
		{name: "the receipts elsewhere", want: false,
			edit: func(t *testing.T, _ string) { t.Setenv("SABLINE_RECEIPTS", t.TempDir()) }},
		{name: "the register elsewhere", want: false,
			edit: func(t *testing.T, _ string) { t.Setenv(guard.RegisterEnv, t.TempDir()) }},
		{name: "the cache elsewhere", want: false,
			edit: func(t *testing.T, _ string) { t.Setenv("XDG_CACHE_HOME", t.TempDir()) }},
		{name: "the state elsewhere", want: false,
			edit: func(t *testing.T, _ string) { t.Setenv("XDG_STATE_HOME", t.TempDir()) }},
		{name: "a relative directory", want: false, edit: func(t *testing.T, dir string) {
			t.Chdir(filepath.Dir(dir))
			setApart(t, filepath.Base(dir)) // every variable relative, alike
		}},
		{name: "a link to the directory", want: false, edit: func(t *testing.T, dir string) {
			link := filepath.Join(filepath.Dir(dir), apartPrefix+"link")
			if err := os.Symlink(dir, link); err != nil {
				t.Fatal(err)
			}
			setApart(t, link)
		}},
		{name: "a file", want: false, edit: func(t *testing.T, dir string) {
			file := filepath.Join(filepath.Dir(dir), apartPrefix+"file")
			if err := os.WriteFile(file, nil, 0o700); err != nil {
				t.Fatal(err)
			}
			setApart(t, file)
		}},
		{name: "another user's directory", want: false, edit: func(t *testing.T, dir string) {
			if os.Geteuid() != 0 || goruntime.GOOS == "windows" {
				t.Skip("skipped: only root can give a directory to another user")
			}
			if err := os.Chown(dir, 12345, 12345); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a directory others may read", want: false, edit: func(t *testing.T, dir string) {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a directory RunApart did not name", want: false, edit: func(t *testing.T, dir string) {
			other := filepath.Join(filepath.Dir(dir), "receipts")
			if err := os.Mkdir(other, 0o700); err != nil {
				t.Fatal(err)
			}
			setApart(t, other)
		}},
		{name: "no directory there", want: false, edit: func(t *testing.T, dir string) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := os.MkdirTemp(t.TempDir(), apartPrefix)
			if err != nil {
				t.Fatal(err)
			}
			setApart(t, dir)
			tt.edit(t, dir)
			if got := inherited(); got != tt.want {
				t.Errorf("inherited() = %v, want %v", got, tt.want)
			}
		})
	}
}

// setApart sets the environment RunApart sets for dir, for t.
func setApart(t *testing.T, dir string) {
	t.Helper()
	for name, value := range apartEnviron(dir, filepath.Join(dir, registerName)) {
		t.Setenv(name, value)
	}
}
