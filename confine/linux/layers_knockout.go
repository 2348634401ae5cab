//go:build sabline_knockout

package linux

import (
	"fmt"
	"os"
	"strconv"
)

// layersOnly returns the one layer LayersOnlyEnv names, read when the
// policy is applied, or "" for every layer when it is unset. A value that
// names no layer is an error, and every layer is then applied.
func layersOnly() (string, error) {
	switch v := os.Getenv(LayersOnlyEnv); v {
	case "":
		return "", nil
	case layerLandlockOnly, layerSeccompOnly, layerCapabilitiesOnly:
		return v, nil
	default:
		return "", fmt.Errorf("%s=%s names no layer (landlock, seccomp "+
			"or capabilities): every layer was applied", LayersOnlyEnv, v)
	}
}

// landlockABIAtMost returns the ABI LandlockABIEnv names, read when the
// policy is applied, or 0 for the kernel's own when it is unset. A value
// that names no ABI is an error, and the kernel's own is then used.
func landlockABIAtMost() (int, error) {
	v := os.Getenv(LandlockABIEnv)
	if v == "" {
		return 0, nil
	}
	if abi, err := strconv.Atoi(v); err == nil && abi >= 1 && abi <= LandlockMaxABI {
		return abi, nil
	}
	return 0, fmt.Errorf("%s=%s names no Landlock ABI (1 to %d): the kernel's was used",
		LandlockABIEnv, v, LandlockMaxABI)
}
