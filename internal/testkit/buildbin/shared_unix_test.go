//go:build unix

package buildbin

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOurs: a binary is shared only in a directory of this user's own that
// no one else may write; anything else is refused, and the control, a
// directory it made itself, is taken.
func TestOurs(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, d string)
		want bool
	}{
		{name: "not there: made", make: func(t *testing.T, d string) {}, want: true},
		{name: "ours, 0700", make: func(t *testing.T, d string) { mkdir(t, d, 0o700) }, want: true},
		{name: "ours, writable by others", make: func(t *testing.T, d string) { mkdir(t, d, 0o777) }},
		{name: "ours, readable by the group", make: func(t *testing.T, d string) { mkdir(t, d, 0o750) }},
		{name: "a link to ours", make: func(t *testing.T, d string) {
			mkdir(t, d+".real", 0o700)
			if err := os.Symlink(d+".real", d); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a file", make: func(t *testing.T, d string) {
			if err := os.WriteFile(d, nil, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "another user's", make: func(t *testing.T, d string) {
			if os.Getuid() != 0 {
				t.Skip("giving a directory to another user takes root")
			}
			mkdir(t, d, 0o700)
			if err := os.Chown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "shared")
			tt.make(t, d)
			if got := ours(d); got != tt.want {
				t.Errorf("ours = %v, want %v", got, tt.want)
			}
		})
	}
}

func mkdir(t *testing.T, d string, perm os.FileMode) {
	t.Helper()
	if err := os.Mkdir(d, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}
