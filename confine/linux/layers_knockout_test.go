//go:build sabline_knockout

package linux

import "testing"

// TestKnockoutSwitchesRead: a knock-out build reads LayersOnlyEnv and
// LandlockABIEnv when the policy is applied (parseLayersOnly and
// parseLandlockABI read their values).
func TestKnockoutSwitchesRead(t *testing.T) {
	t.Setenv(LayersOnlyEnv, layerSeccompOnly)
	t.Setenv(LandlockABIEnv, "1")
	if layers, abi := knockoutSwitches(); layers != layerSeccompOnly || abi != "1" {
		t.Errorf("knockoutSwitches() = %q, %q; want %q, %q", layers, abi, layerSeccompOnly, "1")
	}
}
