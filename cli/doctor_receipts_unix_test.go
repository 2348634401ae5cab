//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabline/sabline/receipt"
)

// TestDoctorReceipts: what sabline doctor advises of the receipts
// directory: one another user made first (mode 0777) is named with its
// owner, as refused; one of ours that others may write in, without the
// sticky bit, is named as losing receipts to them. The controls: ours,
// mode 0700, and ours, sticky, and none yet, no advice.
func TestDoctorReceipts(t *testing.T) {
	tests := []struct {
		name     string
		mode     os.FileMode
		owner    int // -1: ours
		rootOnly bool
		want     string // "" for no advice
	}{
		{name: "another user's", mode: 0o777, owner: 54321, rootOnly: true,
			want: "is owned by uid 54321"},
		{name: "ours, open to all", mode: 0o777, owner: -1,
			want: "other users may remove or rename its receipts"},
		{name: "ours, private", mode: 0o700, owner: -1},
		{name: "ours, sticky", mode: 0o777 | os.ModeSticky, owner: -1},
		{name: "none yet", owner: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rootOnly && os.Geteuid() != 0 {
				t.Skip("needs root, to give a directory to another user")
			}
			dir := filepath.Join(t.TempDir(), "receipts")
			if tt.mode != 0 {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			if tt.owner >= 0 {
				if err := os.Chown(dir, tt.owner, tt.owner); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv(receipt.DirEnv, dir)
			advice := receiptsAdvice()
			switch {
			case tt.want == "" && len(advice) != 0:
				t.Errorf("advice %q, want none", advice)
			case tt.want != "" && (len(advice) != 1 || !strings.Contains(advice[0], tt.want) ||
				!strings.Contains(advice[0], dir)):
				t.Errorf("advice %q, want one naming %s: %q", advice, dir, tt.want)
			}
		})
	}
}
