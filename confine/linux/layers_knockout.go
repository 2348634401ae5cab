//go:build sabline_knockout

package linux

import (
	"fmt"
	"os"
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
