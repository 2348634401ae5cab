//go:build !sabline_knockout

package linux

import "testing"

// TestKnockoutSwitchesUnread: a build without the knock-out tag never
// reads LayersOnlyEnv or LandlockABIEnv: every layer is applied, Landlock
// at the kernel's ABI, whatever they say.
func TestKnockoutSwitchesUnread(t *testing.T) {
	t.Setenv(LayersOnlyEnv, layerSeccompOnly)
	t.Setenv(LandlockABIEnv, "1")
	if layers, abi := knockoutSwitches(); layers != "" || abi != "" {
		t.Errorf("knockoutSwitches() = %q, %q; want every layer at the kernel's ABI in a build "+
			"without sabline_knockout", layers, abi)
	}
}
