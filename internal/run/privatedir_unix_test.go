//go:build unix

package run

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPrivateDir shows what privateDir makes of the runs' directory: one
// made here, or one there already, is a directory this user alone may
// enter, the group's and others' bits taken off (0o750, 0o770, 0o755
// become 0o700); a link to a directory elsewhere is refused, not
// followed, and the directory it leads to is left as it was; so are a
// file, and a directory another user owns.
func TestPrivateDir(t *testing.T) {
	tests := []struct {
		name string
		// make prepares what lies at dir; nil leaves nothing there.
		make func(t *testing.T, dir, elsewhere string)
		// wantErr is what the refusal says; "" when dir is accepted.
		wantErr string
		// wantMode is dir's mode after, where it is accepted.
		wantMode os.FileMode
	}{
		{name: "control: made here", wantMode: 0o700},
		{name: "control: already private", make: mkdirMode(0o700), wantMode: 0o700},
		{name: "the group may enter", make: mkdirMode(0o750), wantMode: 0o700},
		{name: "the group may write", make: mkdirMode(0o770), wantMode: 0o700},
		{name: "others may enter", make: mkdirMode(0o755), wantMode: 0o700},
		{name: "a link to a directory elsewhere", make: func(t *testing.T, dir, elsewhere string) {
			if err := os.Symlink(elsewhere, dir); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "is not a directory"},
		{name: "a file", make: func(t *testing.T, dir, _ string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "not a directory"},
		{name: "another user's directory", make: func(t *testing.T, dir, _ string) {
			if os.Geteuid() != 0 {
				t.Skip("only root can give a directory to another user")
			}
			mkdirMode(0o700)(t, dir, "")
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "belongs to another user"},
		// Another user who made a directory above it first (an
		// XDG_CACHE_HOME at a shared place) could move it away once it
		// was checked and put one of theirs in its place: later runs'
		// directories would be made there.
		{name: "in another user's directory", make: func(t *testing.T, dir, _ string) {
			if os.Geteuid() != 0 {
				t.Skip("only root can give a directory to another user")
			}
			parentMode(0o777)(t, dir, "")
			if err := os.Chown(filepath.Dir(dir), 54321, 54321); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "belongs to another user (uid 54321)"},
		{name: "in a directory every user may write in", make: parentMode(0o777),
			wantErr: "every user may write in"},
		{name: "control: in a sticky directory every user may write in",
			make: parentMode(0o777 | os.ModeSticky), wantMode: 0o700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "cache", "sabline", "runs")
			elsewhere := filepath.Join(base, "elsewhere")
			if err := os.Mkdir(elsewhere, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(elsewhere, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
				t.Fatal(err)
			}
			if tt.make != nil {
				tt.make(t, dir, elsewhere)
			}
			err := privateDir(dir)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("privateDir: %v, want it accepted", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("privateDir: %v, want a refusal that says %q", err, tt.wantErr)
			}
			if fi, err := os.Stat(elsewhere); err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("the directory elsewhere is %v (%v), want it left at 0755", fi.Mode(), err)
			}
			if tt.wantErr != "" || err != nil {
				return
			}
			fi, err := os.Lstat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.IsDir() || fi.Mode().Perm() != tt.wantMode {
				t.Errorf("%s is %v, want a directory of mode %v", dir, fi.Mode(), tt.wantMode)
			}
			if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
				t.Errorf("%s is not this user's", dir)
			}
		})
	}
}

// mkdirMode makes the directory with mode perm, whatever the umask.
func mkdirMode(perm os.FileMode) func(t *testing.T, dir, _ string) {
	return func(t *testing.T, dir, _ string) {
		t.Helper()
		if err := os.Mkdir(dir, perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, perm); err != nil {
			t.Fatal(err)
		}
	}
}

// parentMode sets the mode of the directory above dir, whatever the umask.
func parentMode(perm os.FileMode) func(t *testing.T, dir, _ string) {
	return func(t *testing.T, dir, _ string) {
		t.Helper()
		if err := os.Chmod(filepath.Dir(dir), perm); err != nil {
			t.Fatal(err)
		}
	}
}
