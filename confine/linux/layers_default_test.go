//go:build !sabline_knockout

package linux

import "testing"

// TestLayersOnly checks that a build without the knock-out tag never reads
// LayersOnlyEnv: every layer is applied whatever it says.
func TestLayersOnly(t *testing.T) {
	for _, v := range []string{layerLandlockOnly, layerSeccompOnly, layerCapabilitiesOnly, "bogus"} {
		t.Setenv(LayersOnlyEnv, v)
		if only, err := layersOnly(); only != "" || err != nil {
			t.Errorf("%s=%s: layersOnly() = %q, %v; want every layer in a build without sabline_knockout", LayersOnlyEnv, v, only, err)
		}
	}
}
