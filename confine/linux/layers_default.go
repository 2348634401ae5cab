//go:build !sabline_knockout

package linux

// layersOnly is "": every layer is applied. Only a knock-out build reads
// LayersOnlyEnv (layers_knockout.go).
func layersOnly() (string, error) { return "", nil }

// landlockABIAtMost is 0: Landlock is applied at the kernel's ABI. Only a
// knock-out build reads LandlockABIEnv (layers_knockout.go).
func landlockABIAtMost() (int, error) { return 0, nil }
