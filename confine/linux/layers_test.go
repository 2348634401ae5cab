package linux

import (
	"strconv"
	"testing"
)

// TestParseLayersOnly: a value of LayersOnlyEnv names one layer, or
// every layer when it is empty; one that names no layer is an error
// (every layer applied).
func TestParseLayersOnly(t *testing.T) {
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
			only, err := parseLayersOnly(tt.value)
			if only != tt.wantOnly || (err != nil) != tt.wantErr {
				t.Errorf("parseLayersOnly(%q) = %q, %v; want %q, error %v", tt.value, only, err,
					tt.wantOnly, tt.wantErr)
			}
		})
	}
}

// TestParseLandlockABI: a value of LandlockABIEnv names an ABI from 1 to
// LandlockMaxABI, the newest among them (the control: an ABI a kernel
// may offer is taken), or the kernel's own (0) when it is empty; one
// that names no ABI is an error (the kernel's own): 0, one past the
// newest, a word.
func TestParseLandlockABI(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    int
		wantErr bool
	}{
		{name: "unset", value: ""},
		{name: "the oldest", value: "1", want: 1},
		{name: "the newest", value: strconv.Itoa(LandlockMaxABI), want: LandlockMaxABI},
		{name: "0", value: "0", wantErr: true},
		{name: "past the newest", value: strconv.Itoa(LandlockMaxABI + 1), wantErr: true},
		{name: "a word", value: "abi1", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abi, err := parseLandlockABI(tt.value)
			if abi != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("parseLandlockABI(%q) = %d, %v; want %d, error %v", tt.value, abi, err,
					tt.want, tt.wantErr)
			}
		})
	}
}
