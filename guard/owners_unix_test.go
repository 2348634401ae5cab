//go:build unix

package guard

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPathOwnersOfALink: the owners of a path that is a link are the
// link's and its target's, so that an entry naming it is judged against
// both; a path that is not a link has its own owner alone.
func TestPathOwnersOfALink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving files to other users needs root")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(target, 8, 8); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 7, 7); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		p          string
		wantOwners []int
	}{
		{name: "a link", p: link, wantOwners: []int{7, 8}},
		{name: "its target", p: target, wantOwners: []int{8}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := pathOwnersOf(tc.p)
			if !ok || !slices.Equal(got, tc.wantOwners) {
				t.Errorf("pathOwnersOf(%s) = %v, %v; want %v", tc.p, got, ok, tc.wantOwners)
			}
		})
	}
}
