package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestHeldOnlyBounded: the holds heldOnly reads beside a subdirectory are
// bounded as a subdirectory's names are: at most limit names are listed
// over every view and its .held directory, however many views hold
// entries. The control: under a limit above what is there, every held
// entry is read.
func TestHeldOnlyBounded(t *testing.T) {
	unixOnly(t)
	const boot = "0123456789abcdef0123456789abcdef"
	was := viewTag
	t.Cleanup(func() { viewTag = was })
	viewTag = func() string { return boot + "-9" }
	dir := t.TempDir()
	uid := currentUser()
	held := filepath.Join(dir, subdirName(uid), heldName)
	const views, each = 3, 4
	for v := range views {
		at := filepath.Join(held, fmt.Sprintf("%s-%d", boot, v))
		if err := os.MkdirAll(at, 0o755); err != nil {
			t.Fatal(err)
		}
		for n := range each {
			if err := os.WriteFile(filepath.Join(at, fmt.Sprintf("e%d-%d", v, n)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, limit := range []int{views + 2, views + each + 1, 100} {
		got := heldOnly(dir, uid, nil, limit)
		want := min(views*each, limit-views)
		if len(got) > limit-views || limit == 100 && len(got) != want {
			t.Errorf("limit %d: read %d held entries over %d views, want at most %d (%d)",
				limit, len(got), views, limit-views, want)
		}
	}
}

// TestHeldOnlyTrustsNoViewOthersMayWrite: a view's directory of holds
// that another user may write in (mode 0777), or that another user
// owns, is not read: its entries could be anyone's. The control: the
// same view's directory at 0755 is read.
func TestHeldOnlyTrustsNoViewOthersMayWrite(t *testing.T) {
	unixOnly(t)
	const boot = "0123456789abcdef0123456789abcdef"
	was := viewTag
	t.Cleanup(func() { viewTag = was })
	viewTag = func() string { return boot + "-9" }
	for _, tc := range []struct {
		name     string
		mode     os.FileMode
		owner    int // -1 for this user
		wantRead bool
	}{
		{name: "mode 0755 (the control)", mode: 0o755, owner: -1, wantRead: true},
		{name: "mode 0777", mode: 0o777, owner: -1},
		{name: "owned by another user", mode: 0o755, owner: currentUser() + 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.owner >= 0 && os.Geteuid() != 0 {
				t.Skip("giving a directory to another user needs root")
			}
			dir := t.TempDir()
			uid := currentUser()
			at := filepath.Join(dir, subdirName(uid), heldName, boot+"-1")
			if err := os.MkdirAll(at, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(at, "planted"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(at, tc.mode); err != nil {
				t.Fatal(err)
			}
			if tc.owner >= 0 {
				if err := os.Lchown(at, tc.owner, tc.owner); err != nil {
					t.Fatal(err)
				}
			}
			got := heldOnly(dir, uid, nil, maxSubdirNames)
			if read := len(got) == 1; read != tc.wantRead {
				t.Errorf("read %+v, want read %v", got, tc.wantRead)
			}
		})
	}
}
