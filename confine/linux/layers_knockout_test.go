//go:build sabline_knockout

package linux

import "testing"

// TestLayersOnly checks that a knock-out build reads LayersOnlyEnv: one
// layer by its name, every layer when it is unset, and an error (every
// layer) for a name that is no layer.
func TestLayersOnly(t *testing.T) {
	tests := []struct {
		name     string
		value    string
		wantOnly string
		wantErr  bool
	}{
		{name: "unset", value: ""},
		{name: "landlock", value: "landlock", wantOnly: layerLandlockOnly},
		{name: "seccomp", value: "seccomp", wantOnly: layerSeccompOnly},
		{name: "capabilities", value: "capabilities", wantOnly: layerCapabilitiesOnly},
		{name: "a layer name of a receipt", value: "capabilities-dropped", wantErr: true},
		{name: "two layers", value: "landlock,seccomp", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(LayersOnlyEnv, tt.value)
			only, err := layersOnly()
			if only != tt.wantOnly || (err != nil) != tt.wantErr {
				t.Errorf("layersOnly() = %q, %v; want %q, error %v", only, err, tt.wantOnly, tt.wantErr)
			}
		})
	}
}
