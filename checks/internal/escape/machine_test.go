package escape

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/sabline/sabline/internal/testkit/buildbin"
)

// TestMachineNamesTheBuildsCommit: a kernel report's header names the
// commit the binary that ran its targets was built from, read from that
// binary's own stamp, not the test's; the control, the tests' own build
// (-buildvcs=false), names none. Outside a git checkout it is skipped,
// saying so.
func TestMachineNamesTheBuildsCommit(t *testing.T) {
	stamped := filepath.Join(t.TempDir(), "sabline")
	commit, modified, err := buildbin.SablineStamped(stamped)
	if errors.Is(err, buildbin.ErrNoCheckout) {
		t.Skipf("no commit to stamp: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	plain, err := buildbin.Sabline()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, bin    string
		wantCommit   string
		wantModified bool
	}{
		{name: "stamped", bin: stamped, wantCommit: commit, wantModified: modified},
		{name: "the control: not stamped", bin: plain},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Machine(tt.bin)
			if err != nil {
				t.Fatal(err)
			}
			if r.Build.Commit != tt.wantCommit || r.Build.Modified != tt.wantModified {
				t.Errorf("the report names commit %q, modified %v; want %q, %v", r.Build.Commit,
					r.Build.Modified, tt.wantCommit, tt.wantModified)
			}
		})
	}
}
