package lang

import "testing"

// TestLayerList checks that a message names one refusing layer as it is,
// and says of several that the errno does not tell which refused.
func TestLayerList(t *testing.T) {
	tests := []struct {
		name   string
		layers []string
		want   string
	}{
		{name: "one", layers: []string{"landlock-abi7"}, want: "landlock-abi7"},
		{name: "two", layers: []string{"seccomp", "capabilities-dropped"},
			want: "one of seccomp, capabilities-dropped; the errno does not tell which"},
		{name: "three", layers: []string{"landlock-abi7", "seccomp", "capabilities-dropped"},
			want: "one of landlock-abi7, seccomp, capabilities-dropped; the errno does not tell which"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := LayerList(tt.layers); got != tt.want {
				t.Errorf("LayerList(%q) = %q, want %q", tt.layers, got, tt.want)
			}
		})
	}
}
