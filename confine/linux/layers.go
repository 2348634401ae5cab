package linux

import (
	"fmt"
	"strconv"
)

// LayersOnlyEnv names the variable that, in a knock-out build (built with
// -tags sabline_knockout) and only there, makes Apply install one Linux
// layer alone: "landlock", "seccomp" or "capabilities". The escape checks
// use it to learn which layers stop a target on their own. The Result says
// which layers were left out. Any other build never reads it.
const LayersOnlyEnv = "SABLINE_LAYERS_ONLY"

// LandlockABIEnv names the variable that, in a knock-out build and only
// there, makes Apply plan and apply Landlock at the ABI it names (1 to
// LandlockMaxABI) where the kernel offers that or more: a ruleset that
// handles only an ABI's rights is what a kernel of that ABI enforces, and
// the seccomp filter is the one built beside that ABI. The escape checks
// use it to learn what a kernel of an older ABI holds. The Result notes
// it. Any other build never reads it.
const LandlockABIEnv = "SABLINE_LANDLOCK_ABI"

// The layers LayersOnlyEnv names, and the memory limit, which this package's
// own tests make the kernel refuse.
const (
	layerLandlockOnly     = "landlock"
	layerSeccompOnly      = "seccomp"
	layerCapabilitiesOnly = "capabilities"
	layerMemory           = "memory"
)

// parseLayersOnly reads a value of LayersOnlyEnv: the one layer it
// names, or "" for every layer when it is empty. A value that names no
// layer is an error, and every layer is then applied.
func parseLayersOnly(v string) (string, error) {
	switch v {
	case "":
		return "", nil
	case layerLandlockOnly, layerSeccompOnly, layerCapabilitiesOnly:
		return v, nil
	}
	return "", fmt.Errorf("%s=%s names no layer (landlock, seccomp "+
		"or capabilities): every layer was applied", LayersOnlyEnv, v)
}

// parseLandlockABI reads a value of LandlockABIEnv: the ABI it names, or
// 0 for the kernel's own when it is empty. A value that names no ABI is
// an error, and the kernel's own is then used.
func parseLandlockABI(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	if abi, err := strconv.Atoi(v); err == nil && abi >= 1 && abi <= LandlockMaxABI {
		return abi, nil
	}
	return 0, fmt.Errorf("%s=%s names no Landlock ABI (1 to %d): the kernel's was used",
		LandlockABIEnv, v, LandlockMaxABI)
}
