package run

import (
	"testing"

	"github.com/sabline/sabline/budget"
	"github.com/sabline/sabline/guard"
)

// TestAdmitBuildsNoSetItNeedsNot: a budget whose grants name no path is
// admitted without the guard set, so that one made when first consulted
// (guard.Later, an in-process run's) is not made: admitting it read the
// homes, the mount table and the register, 1.2 ms of each in-process run
// of a hello. The control: a budget with a file grant makes it.
func TestAdmitBuildsNoSetItNeedsNot(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, allow string
		wantBuilt   bool
	}{
		{name: "output alone", allow: "io"},
		{name: "the clock and randomness", allow: "io,clock,rand"},
		{name: "a file grant, the control", allow: "io,fs:read:.", wantBuilt: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			built := false
			g := guard.Later(func() *guard.Set {
				built = true
				return guard.Build(guard.Inputs{}, guard.OS())
			})
			if err := Admit(g, budget.MustParse(dir, tt.allow)); err != nil {
				t.Fatalf("Admit %s: %v", tt.allow, err)
			}
			if built != tt.wantBuilt {
				t.Errorf("Admit %s: the guard set made %v, want %v", tt.allow, built, tt.wantBuilt)
			}
		})
	}
}
